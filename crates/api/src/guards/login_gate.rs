//! The in-memory front of the login lockout (issue 18): decides from memory, before any
//! database work or bcrypt, whether a username or an address is locked, so a flood against
//! a locked key costs a hash-map lookup.
//!
//! Per key (a lower-cased username, or an address) it keeps the failures of this process
//! inside the window (at most [`MAX_FAILURES`] instants: older ones cannot matter), the
//! attempts whose password is being checked right now (counted as failures until they
//! end, so parallel guesses cannot slip past the limit), and the unlock instant the
//! database reported (failures seen by other replicas). No global lock: one short
//! `std::sync::Mutex` section per attempt, no await inside it.
//!
//! Refused attempts are counted per *locked key* — the address when it is locked, else the
//! username — and handed to [`crate::auth::lockout::flush_refused`], which adds each key's count
//! to that key's row of the last hour (CONTRACT §5: every attempt is counted) and logs one
//! summary warning. Keyed by what is locked, a client varying its username from a locked
//! address, or its address against a locked username, moves one counter (issue 31).
//!
//! An IPv6 address is keyed by its /64 ([`crate::connections::address_key`]): one host
//! usually holds a whole /64 and could otherwise rotate through it.

use crate::connections::address_key;
use chrono::{DateTime, Duration, Utc};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Failures tolerated inside the window (CONTRACT §5; `crate::auth::lockout` applies the
/// same policy to the database's record).
pub const MAX_FAILURES: i64 = 5;
/// Length of the window.
pub const WINDOW_MINUTES: i64 = 15;

/// The lockout window.
pub fn window() -> Duration {
    Duration::minutes(WINDOW_MINUTES)
}

/// Most distinct locked keys of refused attempts kept between two flushes; beyond it they
/// are counted together (one row with neither, see the flush).
const MAX_REFUSED_KEYS: usize = 1_000;
/// Keys examined before a sweep of the map drops the idle ones.
const SWEEP_EVERY: u32 = 4096;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    User(String),
    Addr(String),
}

impl Key {
    /// How the key is written in `admin_login_attempts.lock_key`.
    fn label(&self) -> String {
        match self {
            Key::User(u) => format!("user:{u}"),
            Key::Addr(a) => format!("addr:{a}"),
        }
    }
}

#[derive(Debug, Default)]
struct KeyState {
    /// Failures inside the window, oldest first, at most `MAX_FAILURES`.
    failures: VecDeque<DateTime<Utc>>,
    /// Attempts of this key whose outcome is not known yet.
    in_flight: u32,
    /// Locked until then, as the database said.
    locked_until: Option<DateTime<Utc>>,
}

impl KeyState {
    /// When this key stops being locked, if it is locked at `now`.
    fn unlock_at(&mut self, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        while self.failures.front().is_some_and(|t| *t <= now - window()) {
            self.failures.pop_front();
        }
        let from_db = self.locked_until.filter(|t| *t > now);
        let limit = usize::try_from(MAX_FAILURES).unwrap_or(usize::MAX);
        let in_flight = usize::try_from(self.in_flight).unwrap_or(usize::MAX);
        let local = if self.failures.len().saturating_add(in_flight) >= limit {
            // Attempts in flight count as failures made now: the lock then lasts as if
            // they failed, and shortens once they are known.
            let mut times: Vec<DateTime<Utc>> = self.failures.iter().copied().collect();
            times.extend(std::iter::repeat_n(now, in_flight.min(limit)));
            times.sort_unstable_by(|a, b| b.cmp(a));
            times.get(limit - 1).map(|t| *t + window())
        } else {
            None
        };
        local.max(from_db)
    }

    fn idle(&self, now: DateTime<Utc>) -> bool {
        self.in_flight == 0
            && self.locked_until.is_none_or(|t| t <= now)
            && self.failures.back().is_none_or(|t| *t <= now - window())
    }
}

/// Refused attempts of one locked key since the last flush.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// The locked key they hit: `addr:ADDRESS` (an IPv6 one as its /64) or `user:NAME`.
    pub lock_key: String,
    /// Username of the latest of them (already cleaned and bounded).
    pub username: String,
    /// Client address of the latest of them.
    pub ip: Option<String>,
    /// How many attempts.
    pub attempts: u32,
    /// The latest of them.
    pub last_at: DateTime<Utc>,
}

/// The count of one locked key and its latest attempt.
#[derive(Debug)]
struct RefusedCount {
    attempts: u32,
    last_at: DateTime<Utc>,
    username: String,
    ip: Option<String>,
}

#[derive(Debug, Default)]
struct Inner {
    keys: HashMap<Key, KeyState>,
    refused: HashMap<Key, RefusedCount>,
    refused_overflow: u64,
    since_sweep: u32,
}

/// The gate, shared by every request of one process.
#[derive(Debug)]
pub struct LoginGate {
    inner: Mutex<Inner>,
    checks: Arc<Semaphore>,
}

/// What the gate decided.
#[derive(Debug)]
pub enum Decision {
    /// Go on; the reservation must end with [`Reservation::finish`] (dropping it counts a
    /// failure, the safe side when the request is cancelled mid-check).
    Open(Reservation),
    /// Locked: retry after this many seconds. Already counted for the flush.
    Locked {
        /// Seconds until the key unlocks.
        retry_after_secs: u64,
    },
}

/// How an attempt ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Wrong credentials (or none could be checked): a failure of both keys.
    Failed(DateTime<Utc>),
    /// Right credentials.
    Succeeded,
    /// Not attempted after all (no password check slot, a database error before the
    /// check): leaves no trace.
    Withdrawn,
}

/// An attempt let through the gate.
#[derive(Debug)]
pub struct Reservation {
    gate: Arc<LoginGate>,
    keys: Vec<Key>,
    started: DateTime<Utc>,
    done: bool,
}

/// The two keys of an attempt: the username (any case) first, then the address.
fn keys_of(username: &str, ip: Option<&str>) -> Vec<Key> {
    let mut keys = vec![Key::User(username.to_lowercase())];
    if let Some(ip) = ip {
        let addr = ip
            .parse::<std::net::IpAddr>()
            .map_or_else(|_| ip.to_string(), |a| address_key(a).to_string());
        keys.push(Key::Addr(addr));
    }
    keys
}

/// The key a refusal is counted under: the address when it is locked, else the username.
fn refusal_key(keys: &[Key], locked: impl Fn(&Key) -> bool) -> Key {
    keys.iter()
        .rev()
        .find(|k| locked(k))
        .or_else(|| keys.first())
        .cloned()
        .unwrap_or_else(|| Key::User(String::new()))
}

fn retry_after(until: DateTime<Utc>, now: DateTime<Utc>) -> u64 {
    let ms = u64::try_from((until - now).num_milliseconds()).unwrap_or(0);
    ms.div_ceil(1000).max(1)
}

impl LoginGate {
    /// A gate allowing `concurrent_checks` password checks at once.
    pub fn new(concurrent_checks: usize) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            checks: Arc::new(Semaphore::new(concurrent_checks.max(1))),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        // Nothing in a section can leave the map half-updated: a poisoned lock is usable.
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Checks both keys of an attempt and, when neither is locked, reserves it.
    pub fn enter(
        self: &Arc<Self>,
        username: &str,
        ip: Option<&str>,
        now: DateTime<Utc>,
    ) -> Decision {
        let keys = keys_of(username, ip);
        let mut inner = self.lock();
        inner.since_sweep += 1;
        if inner.since_sweep >= SWEEP_EVERY {
            inner.since_sweep = 0;
            inner.keys.retain(|_, s| !s.idle(now));
        }
        let locks: Vec<Option<DateTime<Utc>>> = keys
            .iter()
            .map(|k| inner.keys.get_mut(k).and_then(|s| s.unlock_at(now)))
            .collect();
        if let Some(until) = locks.iter().flatten().max().copied() {
            let by = refusal_key(&keys, |k| {
                keys.iter()
                    .position(|x| x == k)
                    .is_some_and(|i| locks[i].is_some())
            });
            count_refused(&mut inner, by, username, ip, now);
            return Decision::Locked {
                retry_after_secs: retry_after(until, now),
            };
        }
        for k in &keys {
            inner.keys.entry(k.clone()).or_default().in_flight += 1;
        }
        Decision::Open(Reservation {
            gate: Arc::clone(self),
            keys,
            started: now,
            done: false,
        })
    }

    /// Counts an attempt refused after the gate (the database said which keys are locked,
    /// and until when) and remembers those locks, so the next attempts stop in memory.
    /// Returns the seconds to wait, or None when neither key is locked after all.
    pub fn refuse_until(
        &self,
        username: &str,
        ip: Option<&str>,
        user_until: Option<DateTime<Utc>>,
        addr_until: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Option<u64> {
        let until = user_until.max(addr_until)?;
        let keys = keys_of(username, ip);
        let mut inner = self.lock();
        for k in &keys {
            let lock = match k {
                Key::User(_) => user_until,
                Key::Addr(_) => addr_until,
            };
            if lock.is_some() {
                let s = inner.keys.entry(k.clone()).or_default();
                s.locked_until = s.locked_until.max(lock);
            }
        }
        let by = refusal_key(&keys, |k| match k {
            Key::User(_) => user_until.is_some(),
            Key::Addr(_) => addr_until.is_some(),
        });
        count_refused(&mut inner, by, username, ip, now);
        Some(retry_after(until, now))
    }

    /// A slot for one password check, or None when all are busy.
    pub fn try_check(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.checks).try_acquire_owned().ok()
    }

    /// The refused attempts counted since the last call, and how many were counted without
    /// their key (over [`MAX_REFUSED_KEYS`]).
    pub fn take_refused(&self) -> (Vec<Refused>, u64) {
        let mut inner = self.lock();
        let overflow = std::mem::take(&mut inner.refused_overflow);
        let rows = std::mem::take(&mut inner.refused)
            .into_iter()
            .map(|(key, c)| Refused {
                lock_key: key.label(),
                username: c.username,
                ip: c.ip,
                attempts: c.attempts,
                last_at: c.last_at,
            })
            .collect();
        (rows, overflow)
    }

    fn finish_keys(&self, keys: &[Key], outcome: Outcome) {
        let mut inner = self.lock();
        let limit = usize::try_from(MAX_FAILURES).unwrap_or(usize::MAX);
        for k in keys {
            let Some(s) = inner.keys.get_mut(k) else {
                continue;
            };
            s.in_flight = s.in_flight.saturating_sub(1);
            if let Outcome::Failed(at) = outcome {
                let pos = s.failures.partition_point(|t| *t <= at);
                s.failures.insert(pos, at);
                while s.failures.len() > limit {
                    s.failures.pop_front();
                }
            }
        }
    }
}

fn count_refused(
    inner: &mut Inner,
    key: Key,
    username: &str,
    ip: Option<&str>,
    now: DateTime<Utc>,
) {
    let full = inner.refused.len() >= MAX_REFUSED_KEYS;
    match inner.refused.get_mut(&key) {
        Some(c) => {
            c.attempts = c.attempts.saturating_add(1);
            if now >= c.last_at {
                c.last_at = now;
                username.clone_into(&mut c.username);
                c.ip = ip.map(str::to_string);
            }
        }
        None if full => inner.refused_overflow += 1,
        None => {
            inner.refused.insert(
                key,
                RefusedCount {
                    attempts: 1,
                    last_at: now,
                    username: username.to_string(),
                    ip: ip.map(str::to_string),
                },
            );
        }
    }
}

impl Reservation {
    /// Records how the attempt ended.
    pub fn finish(mut self, outcome: Outcome) {
        self.done = true;
        self.gate.finish_keys(&self.keys, outcome);
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if !self.done {
            self.gate
                .finish_keys(&self.keys, Outcome::Failed(self.started));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone};

    fn t0() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap()
    }

    fn open(d: Decision) -> Reservation {
        match d {
            Decision::Open(r) => r,
            Decision::Locked { .. } => panic!("locked"),
        }
    }

    fn locked(d: Decision) -> u64 {
        match d {
            Decision::Locked { retry_after_secs } => retry_after_secs,
            Decision::Open(_) => panic!("open"),
        }
    }

    #[test]
    fn five_failures_lock_the_username_in_any_case_until_the_window_passes() {
        let gate = Arc::new(LoginGate::new(2));
        for i in 0..5 {
            let now = t0() + Duration::seconds(i);
            open(gate.enter("Admin", Some(&format!("10.0.0.{i}")), now))
                .finish(Outcome::Failed(now));
        }
        let now = t0() + Duration::seconds(10);
        assert_eq!(locked(gate.enter("admin", Some("10.0.0.9"), now)), 890);
        let later = t0() + Duration::seconds(900);
        open(gate.enter("admin", Some("10.0.0.9"), later)).finish(Outcome::Succeeded);
        let (rows, overflow) = gate.take_refused();
        assert_eq!(overflow, 0);
        assert_eq!(
            rows,
            vec![Refused {
                lock_key: "user:admin".into(),
                username: "admin".into(),
                ip: Some("10.0.0.9".into()),
                attempts: 1,
                last_at: now,
            }]
        );
        assert!(gate.take_refused().0.is_empty(), "taken once");
    }

    #[test]
    fn attempts_in_flight_count_so_parallel_guesses_cannot_pass_the_limit() {
        let gate = Arc::new(LoginGate::new(2));
        let now = t0();
        let held: Vec<Reservation> = (0..5)
            .map(|_| open(gate.enter("root", Some("192.0.2.1"), now)))
            .collect();
        assert_eq!(locked(gate.enter("root", Some("192.0.2.2"), now)), 900);
        // They all succeed: nothing counts any more.
        for r in held {
            r.finish(Outcome::Succeeded);
        }
        open(gate.enter("root", Some("192.0.2.2"), now)).finish(Outcome::Withdrawn);
        // A reservation dropped unfinished (request cancelled) is a failure.
        for _ in 0..5 {
            drop(open(gate.enter("x", Some("192.0.2.3"), now)));
        }
        assert_eq!(locked(gate.enter("y", Some("192.0.2.3"), now)), 900);
    }

    #[test]
    fn the_database_lock_is_remembered_and_refusals_aggregate_per_key() {
        let gate = Arc::new(LoginGate::new(1));
        let now = t0();
        let until = now + Duration::seconds(30);
        assert_eq!(
            gate.refuse_until("a", Some("198.51.100.1"), Some(until), None, now),
            Some(30)
        );
        assert_eq!(
            gate.refuse_until("b", Some("198.51.100.1"), None, None, now),
            None,
            "nothing locked"
        );
        for _ in 0..3 {
            assert_eq!(locked(gate.enter("a", Some("198.51.100.1"), now)), 30);
        }
        let (rows, _) = gate.take_refused();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].attempts, 4);
        assert_eq!(rows[0].lock_key, "user:a", "only the username was locked");
        open(gate.enter("a", Some("198.51.100.1"), until)).finish(Outcome::Withdrawn);
        // Only the locked key is remembered: the address is free for another username.
        open(gate.enter("c", Some("198.51.100.1"), now)).finish(Outcome::Withdrawn);
    }

    #[test]
    fn a_locked_address_counts_every_username_under_one_key() {
        let gate = Arc::new(LoginGate::new(1));
        for i in 0..5 {
            let now = t0() + Duration::seconds(i);
            open(gate.enter(&format!("u{i}"), Some("203.0.113.4"), now))
                .finish(Outcome::Failed(now));
        }
        let now = t0() + Duration::seconds(10);
        for i in 0..500 {
            locked(gate.enter(&format!("random-{i}"), Some("203.0.113.4"), now));
        }
        let (rows, overflow) = gate.take_refused();
        assert_eq!(overflow, 0);
        assert_eq!(rows.len(), 1, "one key, whatever the usernames");
        assert_eq!(rows[0].lock_key, "addr:203.0.113.4");
        assert_eq!(rows[0].attempts, 500);
    }

    #[test]
    fn an_ipv6_slash_64_is_one_address_for_the_lockout() {
        let gate = Arc::new(LoginGate::new(1));
        for i in 0..5 {
            let now = t0() + Duration::seconds(i);
            let ip = format!("2001:db8:7:7::{i:x}");
            open(gate.enter(&format!("u{i}"), Some(&ip), now)).finish(Outcome::Failed(now));
        }
        let now = t0() + Duration::seconds(10);
        locked(gate.enter("other", Some("2001:db8:7:7:abcd::1"), now));
        open(gate.enter("other", Some("2001:db8:7:8::1"), now)).finish(Outcome::Withdrawn);
        let (rows, _) = gate.take_refused();
        assert_eq!(rows[0].lock_key, "addr:2001:db8:7:7::");
    }

    #[test]
    fn password_checks_are_bounded() {
        let gate = LoginGate::new(2);
        let a = gate.try_check();
        let b = gate.try_check();
        assert!(a.is_some() && b.is_some());
        assert!(gate.try_check().is_none(), "full");
        drop(a);
        assert!(gate.try_check().is_some());
    }
}
