//! The public name search from memory answers exactly as the SQL search: the same bands in
//! the same order, for random catalogues (non-ASCII names, wildcards, duplicates, prefixes
//! of each other) and random texts; and the copy is used only while nothing is known to
//! have changed, then reloaded by the map's refresh task.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::bands::by_name;
use bandmap_index::map::MapIndex;
use bandmap_index::name_search::{self, NameSearch, NameTable};
use bandmap_test_support::TestDb;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use sqlx::PgPool;
use std::sync::Arc;
use std::time::Duration;

const WORDS: &[&str] = &[
    "Storm",
    "storm",
    "STÖRM",
    "Stormo",
    "Ødeland",
    "İzmir",
    "izmir",
    "ΣΟΦΙΑ",
    "σοφια",
    "Straße",
    "50%_off",
    "back\\slash",
    "Ash",
    "ash",
    "Ashen",
    "Æther",
    "a",
    "A",
    "ab",
    "Zyklon",
    "123",
    "ǅemal",
    "x",
];

fn name_strategy() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(WORDS), 1..=3).prop_map(|w| w.join(" "))
}

fn text_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(WORDS).prop_map(str::to_string),
        "[a-zA-Z0-9%_\\\\ öÖσΣİßǅ]{1,5}",
        prop::sample::select(
            &[
                "st",
                "s",
                "ö",
                "Ö",
                "i",
                "İ",
                "σ",
                "%",
                "_",
                "\\",
                "h s",
                "storm storm"
            ][..]
        )
        .prop_map(str::to_string),
    ]
}

async fn insert(pool: &PgPool, names: &[String]) {
    sqlx::query("TRUNCATE bands CASCADE")
        .execute(pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, genre, lat, lon)
         SELECT i, n, CASE WHEN i % 3 = 0 THEN NULL ELSE 'Norway' END,
                CASE WHEN i % 4 = 0 THEN NULL ELSE 'Black Metal' END,
                CASE WHEN i % 2 = 0 THEN 59.5 + i / 1000.0 END,
                CASE WHEN i % 2 = 0 THEN 10.25 END
         FROM unnest($1::text[]) WITH ORDINALITY AS t(n, i)",
    )
    .bind(names)
    .execute(pool)
    .await
    .unwrap();
}

/// Bands of an answer: id, name, primary point.
type Answer = Vec<(i64, String, Option<(f64, f64)>)>;

fn memory_answer(copy: &NameTable, text: &str, limit: usize) -> Answer {
    copy.search(text, limit)
        .into_iter()
        .map(|r| {
            let h = copy.hit(r).unwrap();
            (h.ma_id, h.name, h.lat.zip(h.lon))
        })
        .collect()
}

async fn sql_answer(pool: &PgPool, text: &str, limit: i64) -> Answer {
    by_name::search(pool, text, limit)
        .await
        .unwrap()
        .into_iter()
        .map(|r| (r.ma_id, r.name, r.lat.zip(r.lon)))
        .collect()
}

#[test]
fn memory_and_sql_give_the_same_answer() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let db = rt.block_on(TestDb::new());
    let mut runner = TestRunner::new(Config {
        cases: 24,
        ..Config::default()
    });
    let case = (
        prop::collection::vec(name_strategy(), 0..120),
        prop::collection::vec(text_strategy(), 12),
    );
    runner
        .run(&case, |(names, texts)| {
            rt.block_on(async {
                insert(&db.pool, &names).await;
                let copy = name_search::load(&db.pool, 0).await.unwrap();
                prop_assert_eq!(copy.len(), names.len());
                for text in &texts {
                    let text = text.trim();
                    if text.is_empty() {
                        continue;
                    }
                    for limit in [20i64, 1000] {
                        let memory = memory_answer(&copy, text, limit as usize);
                        let sql = sql_answer(&db.pool, text, limit).await;
                        prop_assert_eq!(&memory, &sql, "text {:?}, limit {}", text, limit);
                    }
                }
                Ok(())
            })
        })
        .unwrap();
}

#[tokio::test]
async fn the_copy_answers_only_while_nothing_changed() {
    let db = TestDb::new().await;
    insert(&db.pool, &["Alpha".into(), "Alphabet".into()]).await;
    let search = NameSearch::new();
    assert!(search.fresh().is_none(), "nothing loaded yet");
    assert!(search.catch_up(&db.pool).await.unwrap());
    let copy = search.fresh().expect("fresh after a load");
    assert_eq!(memory_answer(&copy, "alp", 20).len(), 2);
    assert!(!search.catch_up(&db.pool).await.unwrap(), "nothing to do");

    sqlx::query("INSERT INTO bands (ma_id, name) VALUES (9, 'Alpine')")
        .execute(&db.pool)
        .await
        .unwrap();
    search.changed();
    assert!(search.fresh().is_none(), "a heard change retires the copy");
    assert!(search.catch_up(&db.pool).await.unwrap());
    let copy = search.fresh().unwrap();
    assert_eq!(memory_answer(&copy, "alp", 20).len(), 3);
}

#[tokio::test]
async fn a_failed_load_keeps_the_copy_unused_and_is_retried() {
    let db = TestDb::new().await;
    insert(&db.pool, &["Alpha".into()]).await;
    let search = NameSearch::new();
    search.catch_up(&db.pool).await.unwrap();
    search.changed();
    sqlx::query("ALTER TABLE bands RENAME COLUMN genre TO genre_x")
        .execute(&db.pool)
        .await
        .unwrap();
    assert!(search.holds_copy());
    assert!(search.catch_up(&db.pool).await.is_err());
    assert!(search.fresh().is_none(), "still not fresh: SQL answers");
    assert!(
        !search.holds_copy(),
        "the stale copy went before the load: the two never take memory at once"
    );
    sqlx::query("ALTER TABLE bands RENAME COLUMN genre_x TO genre")
        .execute(&db.pool)
        .await
        .unwrap();
    assert!(search.catch_up(&db.pool).await.unwrap());
    assert!(search.fresh().is_some());
}

/// The refresh task hears a new band (which has no point: migration 024's notification)
/// and reloads the copy by itself.
#[tokio::test]
async fn the_refresh_task_reloads_the_copy_after_a_new_band() {
    let db = TestDb::new().await;
    insert(&db.pool, &["Alpha".into()]).await;
    let map = Arc::new(MapIndex::new());
    let names = Arc::new(NameSearch::new());
    let shutdown = tokio_util::sync::CancellationToken::new();
    let models: Vec<Arc<dyn bandmap_index::refresh::ReadModel>> = vec![map.clone(), names.clone()];
    let task = tokio::spawn(bandmap_index::refresh::run(
        db.pool.clone(),
        models,
        shutdown.clone(),
    ));
    let found = |names: &NameSearch| names.fresh().map(|c| memory_answer(&c, "gamma", 20).len());
    wait_until(|| found(&names) == Some(0)).await;
    sqlx::query("INSERT INTO bands (ma_id, name) VALUES (3, 'Gamma')")
        .execute(&db.pool)
        .await
        .unwrap();
    wait_until(|| found(&names) == Some(1)).await;
    shutdown.cancel();
    task.await.unwrap();
}

async fn wait_until(mut ok: impl FnMut() -> bool) {
    for _ in 0..600 {
        if ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("not reached within 60 s");
}
