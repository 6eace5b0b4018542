//! One refresh for every read model of the API process (issue 26): one task listens for
//! `bandmap_map_changed`, polls, debounces, and fans each round out to the read models
//! behind [`ReadModel`] — the map index, the public name search (with its country counts)
//! and the admin band search. A new read model is one `impl ReadModel` and one line in the
//! list the server hands to [`run`] (docs/architecture.md "A new read model").
//!
//! The task owns *when* a model hears of a change; each model owns *how* it catches up
//! (the map rebuilds a snapshot, the name search reloads its copy at most every few
//! seconds, the band search applies the rows changed since its mark). A model whose
//! refresh fails or panics is logged and retried at the next round; the others go on.

mod task;

pub use task::{DEBOUNCE, POLL_INTERVAL, RETRY_DELAY, Timing, run, run_with};

use bandmap_db::PgPool;
use futures::future::BoxFuture;

/// Why a read model could not catch up (each model's own error, boxed).
pub type RefreshError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// What the task learned before a round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Change {
    /// The database announced committed changes (one notification or several, folded by
    /// the debounce).
    Announced,
    /// Nothing announced: the first round, a poll, or a lost listener. Each model compares
    /// its own mark with the database.
    Polled,
}

/// What a round did to one read model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refreshed {
    /// Up to date (nothing to do, or it caught up with what only it keeps).
    Current,
    /// It found a change no notification announced: the other models hear of it
    /// ([`ReadModel::heard`]) before their refresh of this round.
    Found,
}

/// An in-memory copy of database rows that the refresh task keeps fresh.
pub trait ReadModel: Send + Sync {
    /// A short name for the logs (`map index`, `name search`, `band search`).
    fn name(&self) -> &'static str;

    /// A change was heard (a notification, another model's [`Refreshed::Found`], or a write
    /// through this process): told to every model at once, before the debounce, so a copy
    /// that must not answer while behind stops at once. Cheap, never blocks. Default:
    /// nothing (the model catches up at its refresh).
    fn heard(&self) {}

    /// Whether the model still waits for its first load: the task then runs a round at
    /// once instead of waiting for a change or the poll (default: no).
    fn awaits_first_load(&self) -> bool {
        false
    }

    /// Catches up with the database after `change`.
    fn refresh<'a>(
        &'a self,
        pool: &'a PgPool,
        change: Change,
    ) -> BoxFuture<'a, Result<Refreshed, RefreshError>>;
}
