#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The batch path of the run loop (`run_batch`): many rows claimed by one statement and
//! finished by one transaction, the primary points of their bands (rule 19), and the
//! claim token guarding a row that someone else re-claimed meanwhile.

use crate::common::*;
use bandmap_db::band_locations::claim;
use bandmap_db::band_locations::done::{self, DoneFields, Finish, Finished};
use bandmap_fakes::geoapify::FakeGeoapify;
use bandmap_geocode::{Outcome, run_batch};

#[tokio::test]
async fn rows_not_started_when_the_budget_is_spent_go_back_unchanged() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.set_results("Voss, Norway", vec![city("Voss", 60.63, 6.42, 0.9, "no")]);
    let online = row(&db.pool, 1, 1, "Voss", &[], "Norway", "NO").await;
    let offline = row(&db.pool, 1, 0, "Bergen", &["Vestland"], "Norway", "NO").await;
    let before = state(&db.pool, online).await;
    let spent = worker(&db.pool, &config(&geo), Some(tiny_gazetteer()))
        .with_batch_budget(std::time::Duration::ZERO);

    // The row decided without I/O is finished; the one needing the provider is given back.
    let out = run_batch(&spent, 10).await;
    assert_eq!(
        out,
        [Outcome::Done {
            id: offline,
            provider: "gazetteer".into(),
            dedup: false
        }]
    );
    assert!(
        geo.texts().is_empty(),
        "no provider call once the budget is spent"
    );
    assert_given_back(&db.pool, online, &before).await;
    let claimed: Option<chrono::DateTime<chrono::Utc>> =
        sqlx::query_scalar("SELECT claimed_at FROM band_locations WHERE id = $1")
            .bind(online)
            .fetch_one(&db.pool)
            .await
            .unwrap();
    assert_eq!(claimed, None);

    // Due at once: the next batch with time left resolves it.
    let w = worker(&db.pool, &config(&geo), Some(tiny_gazetteer()));
    let out = run_batch(&w, 10).await;
    assert_eq!(
        out,
        [Outcome::Done {
            id: online,
            provider: "geoapify".into(),
            dedup: false
        }]
    );
}

#[tokio::test]
async fn one_batch_claims_and_finishes_many_rows_with_the_right_primary_points() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.set_results("Voss, Norway", vec![city("Voss", 60.63, 6.42, 0.9, "no")]);
    // A done twin for the dedup fast path.
    let twin = row(&db.pool, 9, 0, "Oslo", &[], "Norway", "NO").await;
    sqlx::query("UPDATE band_locations SET geocode_status = 'done', lat = 59.91, lon = 10.75, provider = 'geoapify', confidence = 0.93, geocode_granularity = 'city', query = 'Oslo, Norway' WHERE id = $1")
        .bind(twin)
        .execute(&db.pool)
        .await
        .unwrap();
    // Band 1: origin by the gazetteer, later step by the provider, both in one batch.
    let later = row(&db.pool, 1, 1, "Voss", &[], "Norway", "NO").await;
    let origin = row(&db.pool, 1, 0, "Bergen", &["Vestland"], "Norway", "NO").await;
    let dedup = row(&db.pool, 2, 0, "Oslo", &[], "Norway", "NO").await;
    let country = country_row(&db.pool, 3, "Norway", "NO").await;
    let second_bergen = row(&db.pool, 4, 0, "Bergen", &[], "Norway", "NO").await;
    let w = worker(&db.pool, &config(&geo), Some(tiny_gazetteer()));

    let mut out = run_batch(&w, 10).await;
    out.sort_by_key(|o| format!("{o:?}"));
    let done = |id, provider: &str, dedup| Outcome::Done {
        id,
        provider: provider.into(),
        dedup,
    };
    let mut expected = vec![
        Outcome::CountryOnly { id: country },
        done(origin, "gazetteer", false),
        done(second_bergen, "gazetteer", false),
        done(dedup, "geoapify", true),
        done(later, "geoapify", false),
    ];
    expected.sort_by_key(|o| format!("{o:?}"));
    assert_eq!(out, expected);
    assert_eq!(
        geo.texts(),
        ["Voss, Norway"],
        "only the row no tier knew called out"
    );

    for id in [origin, later, dedup, second_bergen] {
        assert_eq!(state(&db.pool, id).await.geocode_status, "done");
    }
    assert_eq!(
        state(&db.pool, country).await.geocode_status,
        "country_only"
    );
    let s = state(&db.pool, dedup).await;
    assert_eq!(
        (s.lat, s.lon, s.confidence),
        (Some(59.91), Some(10.75), Some(0.93))
    );
    // Rule 19: band 1 sits at its origin step even though step 1 was done in the same run.
    let (lat, lon, loc) = band_point(&db.pool, 1).await;
    assert_eq!(loc, Some(origin));
    assert_eq!((lat, lon), (Some(60.39299), Some(5.32415)));
    assert_eq!(band_point(&db.pool, 2).await.2, Some(dedup));
    assert_eq!(band_point(&db.pool, 3).await.2, Some(country));
    assert_eq!(band_point(&db.pool, 4).await.2, Some(second_bergen));

    assert!(
        run_batch(&w, 10).await.is_empty(),
        "nothing left: empty batch"
    );
}

#[tokio::test]
async fn a_batch_never_overwrites_a_row_reclaimed_by_someone_else() {
    let db = bandmap_test_support::TestDb::new().await;
    let a = row(&db.pool, 1, 0, "Hamar", &[], "Norway", "NO").await;
    let b = row(&db.pool, 2, 0, "Moss", &[], "Norway", "NO").await;
    let c = row(&db.pool, 3, 0, "Alta", &[], "Norway", "NO").await;

    let claimed = claim::claim_batch(&db.pool, 10).await.unwrap();
    let mut ids: Vec<i64> = claimed.iter().map(|r| r.id).collect();
    ids.sort_unstable();
    assert_eq!(ids, [a, b, c]);
    assert!(
        claim::claim_batch(&db.pool, 10).await.unwrap().is_empty(),
        "claimed rows are not claimed twice"
    );
    // Row b was repaired and re-claimed by another worker: a new claim token.
    sqlx::query(
        "UPDATE band_locations SET claimed_at = claimed_at + interval '1 minute' WHERE id = $1",
    )
    .bind(b)
    .execute(&db.pool)
    .await
    .unwrap();

    let rows: Vec<Finished> = claimed
        .iter()
        .map(|r| Finished {
            claim: r.claim(),
            status: Finish::Done,
            fields: DoneFields {
                lat: 61.0,
                lon: 10.0,
                provider: "test".into(),
                confidence: Some(0.9),
                granularity: Some("city".into()),
                query: None,
            },
        })
        .collect();
    let mut tx = db.pool.begin().await.unwrap();
    let mut written = done::finish_batch(&mut *tx, &rows).await.unwrap();
    tx.commit().await.unwrap();
    written.sort_unstable();
    assert_eq!(written, [(a, 1), (c, 3)]);
    assert_eq!(state(&db.pool, a).await.geocode_status, "done");
    let s = state(&db.pool, b).await;
    assert_eq!(
        s.geocode_status, "processing",
        "the other worker's row is untouched"
    );
    assert_eq!(s.lat, None);
}

#[tokio::test]
async fn two_workers_claiming_batches_in_parallel_never_share_a_row() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.answer_every_text_as_city(0.9);
    let n = 40;
    for i in 0..n {
        let place = format!("Place{i}");
        row(&db.pool, i + 1, 0, &place, &[], "Norway", "NO").await;
    }
    let cfg = config(&geo);
    let (w1, w2) = (worker(&db.pool, &cfg, None), worker(&db.pool, &cfg, None));
    let drain = |w: bandmap_geocode::Worker| async move {
        let mut ids = Vec::new();
        loop {
            let out = run_batch(&w, 7).await;
            if out.is_empty() {
                return ids;
            }
            for o in out {
                match o {
                    Outcome::Done { id, .. } => ids.push(id),
                    other => panic!("unexpected {other:?}"),
                }
            }
        }
    };
    let (a, b, c, d) = tokio::join!(drain(w1.clone()), drain(w1), drain(w2.clone()), drain(w2));
    let mut done = [a, b, c, d].concat();
    done.sort_unstable();
    let total = done.len();
    done.dedup();
    assert_eq!(total, n as usize);
    assert_eq!(done.len(), n as usize, "a row was processed twice");
    assert_eq!(geo.call_count(), n as usize, "one call per row");
}

/// Makes every write of `done` to a row fail with SQLSTATE `code` (a trigger), or lifts it.
/// The row is `pending` again with its attempts and error as they were in `before`: given
/// back, not counted as a failure.
async fn assert_given_back(pool: &sqlx::PgPool, id: i64, before: &RowState) {
    let after = state(pool, id).await;
    assert_eq!(after.geocode_status, "pending");
    assert_eq!(
        (after.attempts, &after.error),
        (before.attempts, &before.error)
    );
}

async fn refuse_done(pool: &sqlx::PgPool, code: Option<&str>) {
    let sql = match code {
        Some(code) => format!(
            "CREATE OR REPLACE FUNCTION refuse_done() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN RAISE EXCEPTION 'refused by the test' USING ERRCODE = '{code}'; END $$;
             DROP TRIGGER IF EXISTS refuse_done ON band_locations;
             CREATE TRIGGER refuse_done BEFORE UPDATE ON band_locations FOR EACH ROW
             WHEN (NEW.geocode_status = 'done') EXECUTE FUNCTION refuse_done();"
        ),
        None => "DROP TRIGGER IF EXISTS refuse_done ON band_locations;".to_string(),
    };
    sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
        .execute(pool)
        .await
        .unwrap();
}

/// The database failing under a row (57P01, what a server shutting down answers) is not the
/// row's failure: the row goes back to `pending`, attempts and error unchanged, and is
/// geocoded once the database answers again. A statement the database refuses for the row
/// itself (23514, a check) still ends the row `error`.
#[tokio::test]
async fn a_row_the_database_failed_under_goes_back_pending_not_error() {
    let db = bandmap_test_support::TestDb::new().await;
    let geo = FakeGeoapify::start().await;
    geo.set_results("Voss, Norway", vec![city("Voss", 60.63, 6.42, 0.9, "no")]);
    let id = row(&db.pool, 1, 0, "Voss", &[], "Norway", "NO").await;
    let before = state(&db.pool, id).await;
    let w = worker(&db.pool, &config(&geo), Some(tiny_gazetteer()));

    refuse_done(&db.pool, Some("57P01")).await;
    let out = run_batch(&w, 10).await;
    assert!(
        matches!(&out[..], [Outcome::Fault { message }] if message.contains("given back")),
        "{out:?}"
    );
    assert_given_back(&db.pool, id, &before).await;

    refuse_done(&db.pool, None).await;
    let out = run_batch(&w, 10).await;
    assert_eq!(
        out,
        [Outcome::Done {
            id,
            provider: "geoapify".into(),
            dedup: false
        }]
    );

    let other = row(&db.pool, 2, 0, "Voss", &[], "Norway", "NO").await;
    refuse_done(&db.pool, Some("23514")).await;
    let out = run_batch(&w, 10).await;
    assert!(
        matches!(&out[..], [Outcome::Error { id, .. }] if *id == other),
        "{out:?}"
    );
    assert_eq!(state(&db.pool, other).await.geocode_status, "error");
}
