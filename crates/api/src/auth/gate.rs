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
//! Refused attempts are counted per (username, address) and handed to
//! [`super::lockout::flush_refused`], which writes one row per pair every few seconds
//! (CONTRACT §5: every attempt is recorded) and logs one summary warning.

use super::lockout::{MAX_FAILURES, window};
use chrono::{DateTime, Utc};
use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// Most distinct (username, address) pairs of refused attempts kept between two flushes;
/// beyond it they are counted together (one row with neither, see the flush).
const MAX_REFUSED_PAIRS: usize = 1_000;
/// Keys examined before a sweep of the map drops the idle ones.
const SWEEP_EVERY: u32 = 4096;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Key {
    User(String),
    Addr(String),
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

/// Refused attempts of one (username, address) pair since the last flush.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    /// Username as given (already cleaned and bounded).
    pub username: String,
    /// Client address.
    pub ip: Option<String>,
    /// How many attempts.
    pub attempts: u32,
    /// The latest of them.
    pub last_at: DateTime<Utc>,
}

#[derive(Debug, Default)]
struct Inner {
    keys: HashMap<Key, KeyState>,
    refused: HashMap<(String, Option<String>), (u32, DateTime<Utc>)>,
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

fn keys_of(username: &str, ip: Option<&str>) -> Vec<Key> {
    let mut keys = vec![Key::User(username.to_lowercase())];
    if let Some(ip) = ip {
        keys.push(Key::Addr(ip.to_string()));
    }
    keys
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
        let until = keys
            .iter()
            .filter_map(|k| inner.keys.get_mut(k).and_then(|s| s.unlock_at(now)))
            .max();
        if let Some(until) = until {
            count_refused(&mut inner, username, ip, now);
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

    /// Counts an attempt refused after the gate (the database said locked) and remembers
    /// the lock, so the next attempts stop in memory.
    pub fn refuse_until(
        &self,
        username: &str,
        ip: Option<&str>,
        until: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> u64 {
        let mut inner = self.lock();
        for k in keys_of(username, ip) {
            let s = inner.keys.entry(k).or_default();
            s.locked_until = s.locked_until.max(Some(until));
        }
        count_refused(&mut inner, username, ip, now);
        retry_after(until, now)
    }

    /// A slot for one password check, or None when all are busy.
    pub fn try_check(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.checks).try_acquire_owned().ok()
    }

    /// The refused attempts counted since the last call, and how many were counted without
    /// their pair (over [`MAX_REFUSED_PAIRS`]).
    pub fn take_refused(&self) -> (Vec<Refused>, u64) {
        let mut inner = self.lock();
        let overflow = std::mem::take(&mut inner.refused_overflow);
        let rows = std::mem::take(&mut inner.refused)
            .into_iter()
            .map(|((username, ip), (attempts, last_at))| Refused {
                username,
                ip,
                attempts,
                last_at,
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

fn count_refused(inner: &mut Inner, username: &str, ip: Option<&str>, now: DateTime<Utc>) {
    let key = (username.to_string(), ip.map(str::to_string));
    let full = inner.refused.len() >= MAX_REFUSED_PAIRS;
    match inner.refused.get_mut(&key) {
        Some(entry) => {
            entry.0 = entry.0.saturating_add(1);
            entry.1 = entry.1.max(now);
        }
        None if full => inner.refused_overflow += 1,
        None => {
            inner.refused.insert(key, (1, now));
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
    fn the_database_lock_is_remembered_and_refusals_aggregate_per_pair() {
        let gate = Arc::new(LoginGate::new(1));
        let now = t0();
        let until = now + Duration::seconds(30);
        assert_eq!(gate.refuse_until("a", Some("198.51.100.1"), until, now), 30);
        for _ in 0..3 {
            assert_eq!(locked(gate.enter("a", Some("198.51.100.1"), now)), 30);
        }
        let (rows, _) = gate.take_refused();
        assert_eq!(rows.len(), 1);
        assert_eq!(rows[0].attempts, 4);
        open(gate.enter("a", Some("198.51.100.1"), until)).finish(Outcome::Withdrawn);
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
