//! A provider's rate limit across processes (rule 14, issue 19 point 2): the table
//! `provider_pacing` (migration 019) holds, per provider key hash, the earliest instant the
//! next call may start. A caller takes its [`Turn`] ([`begin_turn`]: the key's row locked
//! `FOR UPDATE` in a transaction of its own, so the callers of every process that uses the
//! key queue on that row), waits [`Turn::wait`], makes its call, and [`Turn::end`] sets the
//! next instant to the call's end plus the spacing and releases the row. As the in-process
//! limiter does, the spacing runs from the END of a call, so it holds at the provider's
//! side whatever the latency. A process that dies mid-call loses its connection, which
//! rolls the transaction back and frees the row.

use crate::Result;
use sqlx::{PgPool, Postgres, Transaction};
use std::time::Duration;

/// One caller's turn on a provider key: holds the key's row until [`Turn::end`].
#[derive(Debug)]
pub struct Turn {
    tx: Transaction<'static, Postgres>,
    key_hash: String,
    spacing: Duration,
    wait: Duration,
}

/// Waits for the key's row (other processes' calls) and returns the turn, with how long
/// the caller must still wait before starting its call.
pub async fn begin_turn(pool: &PgPool, key_hash: &str, spacing: Duration) -> Result<Turn> {
    let mut tx = pool.begin().await?;
    sqlx::query(
        "INSERT INTO provider_pacing (key_hash, next_at) VALUES ($1, now() - interval '1 day')
         ON CONFLICT (key_hash) DO NOTHING",
    )
    .bind(key_hash)
    .execute(&mut *tx)
    .await?;
    let wait: f64 = sqlx::query_scalar(
        "SELECT GREATEST(EXTRACT(EPOCH FROM (next_at - clock_timestamp())), 0)::float8
         FROM provider_pacing WHERE key_hash = $1 FOR UPDATE",
    )
    .bind(key_hash)
    .fetch_one(&mut *tx)
    .await?;
    Ok(Turn {
        tx,
        key_hash: key_hash.to_string(),
        spacing,
        wait: Duration::try_from_secs_f64(wait).unwrap_or(Duration::ZERO),
    })
}

impl Turn {
    /// How long to wait before the call.
    pub fn wait(&self) -> Duration {
        self.wait
    }

    /// After the call: the next call on the key starts no earlier than now + spacing.
    pub async fn end(mut self) -> Result<()> {
        sqlx::query(
            "UPDATE provider_pacing SET next_at = clock_timestamp() + make_interval(secs => $2)
             WHERE key_hash = $1",
        )
        .bind(&self.key_hash)
        .bind(self.spacing.as_secs_f64())
        .execute(&mut *self.tx)
        .await?;
        self.tx.commit().await?;
        Ok(())
    }
}
