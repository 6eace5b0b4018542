//! The one refresh task: a change reaches the three read models (map index, name search,
//! band search) through it, a read model whose refresh fails or panics does not stop the
//! others, and a change one model finds by itself is heard by the others.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_index::band_search::BandSearch;
use bandmap_index::map::MapIndex;
use bandmap_index::name_search::NameSearch;
use bandmap_index::refresh::{self, Change, ReadModel, RefreshError, Refreshed, Timing};
use bandmap_test_support::TestDb;
use futures::future::BoxFuture;
use sqlx::PgPool;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio_util::sync::CancellationToken;

const SEED: &str = r#"
INSERT INTO bands (ma_id, name, genre, country, country_code, status, formed_year) VALUES
 (1, 'Alpha', 'Black Metal', 'Norway', 'NO', 'Active', 1991),
 (2, 'Beta', 'Death Metal', 'Sweden', 'SE', 'Split-up', 1988);
INSERT INTO band_locations (id, ma_id, step_order, parsed_step, step_label, location_raw, lat, lon, geocode_status) VALUES
 (11, 1, 0, 0, 'origin', 'Oslo', 59.91, 10.75, 'done'),
 (21, 2, 0, 0, NULL, 'Stockholm', 59.33, 18.07, 'done');
"#;

const GAMMA: &str = r#"
INSERT INTO bands (ma_id, name, genre, country, country_code) VALUES
 (3, 'Gamma', 'Doom Metal', 'Finland', 'FI');
INSERT INTO band_locations (id, ma_id, step_order, parsed_step, location_raw, lat, lon, geocode_status) VALUES
 (31, 3, 0, 0, 'Turku', 60.45, 22.27, 'done');
"#;

/// Only a notification starts a round after the first: the poll is far away.
const NOTIFIED_ONLY: Timing = Timing {
    poll: Duration::from_secs(3600),
    debounce: Duration::from_millis(10),
    retry: Duration::from_millis(10),
};

/// Short periods: the name search, reloaded at most every 5 s, takes a change heard within
/// 5 s of its last load at a later round (a poll, as in production).
const QUICK: Timing = Timing {
    poll: Duration::from_millis(200),
    debounce: Duration::from_millis(10),
    retry: Duration::from_millis(10),
};

async fn seeded() -> TestDb {
    let db = TestDb::new().await;
    sqlx::raw_sql(SEED).execute(&db.pool).await.unwrap();
    db
}

async fn wait_until(what: &str, mut ok: impl AsyncFnMut() -> bool) {
    for _ in 0..600 {
        if ok().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("not reached within 60 s: {what}");
}

fn finds(names: &NameSearch, text: &str) -> Option<usize> {
    names.fresh().map(|copy| copy.search(text, 20).len())
}

/// A read model for the test: it records what it was told and fails, panics or finds as
/// asked.
#[derive(Debug, Default)]
struct Probe {
    act: Act,
    heard: AtomicUsize,
    /// Each refresh: the change, and how many times it had heard of one before.
    refreshes: Mutex<Vec<(Change, usize)>>,
}

#[derive(Debug, Default, Clone, Copy)]
enum Act {
    #[default]
    Nothing,
    Fail,
    Panic,
    FindOnce,
}

impl Probe {
    fn new(act: Act) -> Arc<Probe> {
        Arc::new(Probe {
            act,
            ..Probe::default()
        })
    }

    fn refreshes(&self) -> Vec<(Change, usize)> {
        self.refreshes.lock().unwrap().clone()
    }
}

impl ReadModel for Probe {
    fn name(&self) -> &'static str {
        "probe"
    }

    fn heard(&self) {
        self.heard.fetch_add(1, Ordering::SeqCst);
    }

    fn refresh<'a>(
        &'a self,
        _: &'a PgPool,
        change: Change,
    ) -> BoxFuture<'a, Result<Refreshed, RefreshError>> {
        Box::pin(async move {
            let round = {
                let mut seen = self.refreshes.lock().unwrap();
                seen.push((change, self.heard.load(Ordering::SeqCst)));
                seen.len()
            };
            match self.act {
                Act::Nothing => Ok(Refreshed::Current),
                Act::Fail => Err("injected refresh failure".into()),
                Act::Panic => panic!("injected refresh panic"),
                Act::FindOnce if round == 1 => Ok(Refreshed::Found),
                Act::FindOnce => Ok(Refreshed::Current),
            }
        })
    }
}

#[tokio::test]
async fn a_change_reaches_the_three_read_models_through_the_one_task() {
    let db = seeded().await;
    let map = Arc::new(MapIndex::new());
    let names = Arc::new(NameSearch::new());
    let bands = Arc::new(BandSearch::new());
    let models: Vec<Arc<dyn ReadModel>> = vec![map.clone(), names.clone(), bands.clone()];
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(refresh::run_with(
        db.pool.clone(),
        models,
        QUICK,
        shutdown.clone(),
    ));
    // The first round loads all three.
    wait_until("the first loads", async || {
        map.current().len() == 2
            && finds(&names, "alpha") == Some(1)
            && bands.bands().await == Some(2)
    })
    .await;
    assert_eq!(finds(&names, "gamma"), Some(0));

    // One write; no list, no search, no map request: only the task can bring it in (the
    // band search's copy is read without a list: `bands()` applies no changes).
    sqlx::raw_sql(GAMMA).execute(&db.pool).await.unwrap();
    wait_until("the change in all three", async || {
        map.current().len() == 3
            && finds(&names, "gamma") == Some(1)
            && bands.bands().await == Some(3)
    })
    .await;

    sqlx::query("DELETE FROM bands WHERE ma_id = 2")
        .execute(&db.pool)
        .await
        .unwrap();
    wait_until("the delete in all three", async || {
        map.current().len() == 2
            && finds(&names, "beta") == Some(0)
            && bands.bands().await == Some(2)
    })
    .await;
    shutdown.cancel();
    task.await.unwrap();
}

#[tokio::test]
async fn a_read_model_that_fails_or_panics_does_not_stop_the_others() {
    let db = seeded().await;
    let failing = Probe::new(Act::Fail);
    let panicking = Probe::new(Act::Panic);
    let after = Probe::new(Act::Nothing);
    let map = Arc::new(MapIndex::new());
    let names = Arc::new(NameSearch::new());
    // The broken ones first: the models after them in the round must still be refreshed.
    let models: Vec<Arc<dyn ReadModel>> = vec![
        failing.clone(),
        panicking.clone(),
        map.clone(),
        names.clone(),
        after.clone(),
    ];
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(refresh::run_with(
        db.pool.clone(),
        models,
        QUICK,
        shutdown.clone(),
    ));
    wait_until("the first round", async || {
        map.current().len() == 2
            && finds(&names, "alpha") == Some(1)
            && !after.refreshes().is_empty()
    })
    .await;

    sqlx::raw_sql(GAMMA).execute(&db.pool).await.unwrap();
    wait_until("the change past the broken models", async || {
        map.current().len() == 3
            && finds(&names, "gamma") == Some(1)
            && after
                .refreshes()
                .iter()
                .any(|(c, _)| *c == Change::Announced)
    })
    .await;
    // The broken ones were asked again at the later round, and heard of the change too.
    for broken in [&failing, &panicking] {
        let seen = broken.refreshes();
        assert!(seen.len() >= 2, "{seen:?}");
        assert!(
            seen.iter().any(|(c, _)| *c == Change::Announced),
            "{seen:?}"
        );
        assert!(broken.heard.load(Ordering::SeqCst) >= 1);
    }
    shutdown.cancel();
    task.await.unwrap();
}

#[tokio::test]
async fn a_change_one_model_finds_is_heard_by_the_others_before_their_refresh() {
    let db = TestDb::new().await;
    let finder = Probe::new(Act::FindOnce);
    let other = Probe::new(Act::Nothing);
    let models: Vec<Arc<dyn ReadModel>> = vec![finder.clone(), other.clone()];
    let shutdown = CancellationToken::new();
    let task = tokio::spawn(refresh::run_with(
        db.pool.clone(),
        models,
        NOTIFIED_ONLY,
        shutdown.clone(),
    ));
    wait_until("the first round", async || !other.refreshes().is_empty()).await;
    shutdown.cancel();
    task.await.unwrap();
    // The first round is a poll; the finder found a change in it, which the other heard
    // before its own refresh of the same round; the finder is not told its own news.
    assert_eq!(finder.refreshes()[0], (Change::Polled, 0));
    assert_eq!(other.refreshes()[0], (Change::Polled, 1));
    assert_eq!(finder.heard.load(Ordering::SeqCst), 0);
}
