//! A service instance's identity for rule 7 with several replicas (CONTRACT §1): a
//! session-level advisory lock held on a connection of its own for the instance's lifetime.
//! Its runs record the lock key as their owner; start recovery of another replica closes
//! only runs whose owner's lock nobody holds (see [`runs::recover_orphaned`]). Used by the
//! crawler and the enqueue daemon.

use crate::runs::{self, Owner};
use crate::{DbError, Service};
use sqlx::{Connection, PgConnection, PgPool};
use std::hash::{BuildHasher, Hasher};
use tokio::sync::Mutex;

/// Random keys tried before giving up on a lock (a clash is already a 1-in-2^31 event).
const KEY_ATTEMPTS: u32 = 8;

/// The instance lock; taken on first use, re-taken if its connection was lost.
#[derive(Debug)]
pub struct Instance {
    service: Service,
    held: Mutex<Option<Held>>,
}

#[derive(Debug)]
struct Held {
    owner: Owner,
    conn: PgConnection,
}

impl Instance {
    /// The lock of an instance of `service` (named in its runs' owner), not yet taken.
    pub fn new(service: Service) -> Instance {
        Instance {
            service,
            held: Mutex::new(None),
        }
    }

    /// The owner to record on a new run: the held lock, after checking its connection is
    /// alive (a lost connection lost the lock too, so a new one is taken). None when no free
    /// key was found: runs are then ownerless, which only makes them recoverable by others.
    pub async fn owner(&self, pool: &PgPool) -> Result<Option<Owner>, DbError> {
        let mut held = self.held.lock().await;
        if let Some(h) = held.as_mut() {
            if h.conn.ping().await.is_ok() {
                return Ok(Some(h.owner.clone()));
            }
            tracing::warn!(owner = %h.owner.name, "instance lock connection lost; taking a new lock");
            *held = None;
        }
        *held = acquire(pool, self.service).await?;
        Ok(held.as_ref().map(|h| h.owner.clone()))
    }

    /// Releases the lock (at shutdown), so recovery elsewhere may close this instance's
    /// runs at once rather than when the connection times out.
    pub async fn release(&self) {
        let Some(mut h) = self.held.lock().await.take() else {
            return;
        };
        let unlocked = sqlx::query("SELECT pg_advisory_unlock($1, $2)")
            .bind(runs::CRAWL_OWNER_LOCK_CLASS)
            .bind(h.owner.lock)
            .execute(&mut h.conn)
            .await;
        if let Err(e) = unlocked {
            tracing::warn!(error = %e, "instance lock not released; it ends with the connection");
        }
        let _ = h.conn.close().await;
    }
}

async fn acquire(pool: &PgPool, service: Service) -> Result<Option<Held>, DbError> {
    // A connection of its own, detached from the pool: a session lock must outlive every
    // query, and a pooled connection could be closed or reused by the pool.
    let mut conn = pool.acquire().await?.detach();
    for attempt in 0..KEY_ATTEMPTS {
        let lock = random_key(attempt);
        if runs::try_lock_owner(&mut conn, lock).await? {
            let owner = Owner {
                name: format!("{service} pid {} key {lock}", std::process::id()),
                lock,
            };
            tracing::info!(owner = %owner.name, "instance lock taken");
            return Ok(Some(Held { owner, conn }));
        }
    }
    tracing::warn!("no free instance lock key; runs will have no owner");
    Ok(None)
}

/// A non-negative random key (std's per-process random hasher state; no extra dependency).
fn random_key(attempt: u32) -> i32 {
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u32(std::process::id());
    h.write_u32(attempt);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    h.write_u128(nanos);
    i32::try_from(h.finish() & 0x7fff_ffff).unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::random_key;

    #[test]
    fn keys_are_non_negative_and_vary() {
        let keys: Vec<i32> = (0..16).map(random_key).collect();
        assert!(keys.iter().all(|k| *k >= 0));
        let mut unique = keys.clone();
        unique.sort_unstable();
        unique.dedup();
        assert!(unique.len() > 1, "{keys:?}");
    }
}
