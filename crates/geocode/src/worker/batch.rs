//! The batch path of the run loop: one claim statement for up to `limit` rows, the rows
//! decided without I/O (country-only, dedup twin, gazetteer — nearly all of them on real
//! data) finished together in one transaction (one `done` statement + one primary-point
//! statement), then the rest one by one through the cache and the provider, exactly as
//! [`super::run_once`] does. The database round trips per row, not the resolution, limit
//! the worker (docs/geocoding.md), so sharing them across a batch is the throughput lever.

use super::{Outcome, Plan, Worker, exit, finish_one, guarded, not_ours, plan, record_error};
use crate::done::finish_many;
use bandmap_db::band_locations::claim::{self, Claimed, GeocodeClaim};
use bandmap_db::band_locations::done::Finished;
use bandmap_db::band_locations::exits;
use std::collections::HashSet;
use std::panic::AssertUnwindSafe;

/// Claims up to `limit` due rows and takes each to its next state; one [`Outcome`] per
/// row handled (rows given back unstarted once the worker's batch budget, by default
/// [`super::BATCH_BUDGET`], is spent have none; an empty list
/// means nothing was due). Never panics; a row whose processing
/// raises ends `error` alone, the others are unaffected.
#[tracing::instrument(skip_all)]
pub async fn run_batch(ctx: &Worker, limit: usize) -> Vec<Outcome> {
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let rows = match claim::claim_batch(&ctx.pool, limit).await {
        Ok(rows) => rows,
        Err(e) => {
            return vec![Outcome::Fault {
                message: format!("claim failed: {e}"),
            }];
        }
    };
    let mut out = Vec::with_capacity(rows.len());
    let mut quick: Vec<(Finished, Outcome)> = Vec::new();
    let mut online = Vec::new();
    for row in &rows {
        match std::panic::catch_unwind(AssertUnwindSafe(|| plan(ctx, row))) {
            Ok(Plan::Finish(f, outcome)) => quick.push((f, outcome)),
            Ok(Plan::Online(place, notes)) => online.push((row, place, notes)),
            Err(panic) => {
                let failure = format!(
                    "processing panicked: {}",
                    bandmap_runtime::panic_message(&*panic)
                );
                out.push(record_error(ctx, row, failure).await);
            }
        }
    }
    finish_quick(ctx, &rows, quick, &mut out).await;

    let started = std::time::Instant::now();
    let mut pending = online.into_iter();
    for (row, place, notes) in pending.by_ref() {
        if started.elapsed() >= ctx.batch_budget {
            // Not started: give it (and the rest, below) back for another loop to take.
            release(ctx, std::iter::once(row), &mut out).await;
            break;
        }
        let work = async {
            let resolution = ctx.geocoder.online(&place, notes).await;
            exit(ctx, row, resolution).await
        };
        out.push(guarded(ctx, row, work).await);
    }
    release(ctx, pending.map(|(row, _, _)| row), &mut out).await;
    out
}

/// Writes the rows decided without I/O in one transaction. If that transaction fails
/// (one row breaking a constraint fails the whole statement), each row is written on its
/// own so only the faulty one ends `error`.
async fn finish_quick(
    ctx: &Worker,
    rows: &[Claimed],
    quick: Vec<(Finished, Outcome)>,
    out: &mut Vec<Outcome>,
) {
    if quick.is_empty() {
        return;
    }
    let batch: Vec<Finished> = quick.iter().map(|(f, _)| f.clone()).collect();
    match finish_many(&ctx.pool, &batch).await {
        Ok(written) => {
            let written: HashSet<i64> = written.into_iter().collect();
            for (f, outcome) in quick {
                out.push(if written.contains(&f.claim.id()) {
                    outcome
                } else {
                    not_ours(f.claim.id())
                });
            }
        }
        Err(e) => {
            tracing::warn!(error = %e, rows = batch.len(), "batch finish failed; finishing rows one by one");
            for (f, outcome) in quick {
                let id = f.claim.id();
                let Some(row) = rows.iter().find(|r| r.id == id) else {
                    continue;
                };
                let work = async {
                    Ok(if finish_one(&ctx.pool, f).await? {
                        outcome
                    } else {
                        not_ours(id)
                    })
                };
                out.push(guarded(ctx, row, work).await);
            }
        }
    }
}

async fn release<'a>(
    ctx: &Worker,
    rows: impl Iterator<Item = &'a Claimed>,
    out: &mut Vec<Outcome>,
) {
    let claims: Vec<GeocodeClaim> = rows.map(Claimed::claim).collect();
    if claims.is_empty() {
        return;
    }
    match exits::release(&ctx.pool, &claims).await {
        Ok(n) => tracing::info!(rows = n, "batch budget spent; rows released"),
        Err(e) => out.push(Outcome::Fault {
            message: format!("could not release {} rows: {e}", claims.len()),
        }),
    }
}
