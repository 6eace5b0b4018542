//! Property test of the `band_locations` lifecycle: random sequences of the typed
//! transitions (geocoder, LLM worker, admin) on a real row in a real database. After each
//! step the row satisfies the table's CHECK constraints and the lifecycle's invariants, its
//! status is the one a small model predicts, its kind is kept, and a transition the row's
//! state does not allow (a stale claim, a lease on a row that left `llm_needed`, a worker
//! write over a manual override) was refused and left the row exactly as it was.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::Point;
use bandmap_db::band_locations::claim::{self, GeocodeClaim};
use bandmap_db::band_locations::done::{self, DoneBy, DoneFields, Finish, Finished};
use bandmap_db::band_locations::exits::{self, MAX_ATTEMPTS};
use bandmap_db::band_locations::kind::{KindColumns, LocationKind, MANUAL_STEP};
use bandmap_db::band_locations::llm::{self, LlmLease};
use bandmap_db::band_locations::requeue::{Bulk, bulk_requeue, requeue_one};
use bandmap_db::band_locations::{GeocodeStatus, manual_point, upkeep};
use bandmap_test_support::TestDb;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use sqlx::PgPool;
use std::time::Duration;

/// One step a worker or the admin may take.
#[derive(Debug, Clone, Copy)]
enum Op {
    Claim,
    GeoDone { stale: bool },
    GeoCountryOnly { stale: bool },
    GeoFail { to_llm: bool },
    GeoError,
    GeoWait,
    GeoRelease,
    RepairStuck,
    LlmClaim,
    LlmDone,
    LlmManual,
    LlmError,
    LlmRetry,
    LlmPostpone,
    DoneUnclaimed,
    ManualPoint,
    Requeue,
    Bulk(Bulk),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        5 => Just(Op::Claim),
        2 => any::<bool>().prop_map(|stale| Op::GeoDone { stale }),
        1 => any::<bool>().prop_map(|stale| Op::GeoCountryOnly { stale }),
        5 => prop::bool::weighted(0.2).prop_map(|to_llm| Op::GeoFail { to_llm }),
        1 => Just(Op::GeoError),
        1 => Just(Op::GeoWait),
        1 => Just(Op::GeoRelease),
        1 => Just(Op::RepairStuck),
        2 => Just(Op::LlmClaim),
        1 => Just(Op::LlmDone),
        1 => Just(Op::LlmManual),
        1 => Just(Op::LlmError),
        1 => Just(Op::LlmRetry),
        1 => Just(Op::LlmPostpone),
        1 => Just(Op::DoneUnclaimed),
        1 => Just(Op::ManualPoint),
        1 => Just(Op::Requeue),
        1 => prop_oneof![
            Just(Bulk::ResetErrors),
            Just(Bulk::ResetLlm),
            Just(Bulk::RequeueAll),
            Just(Bulk::ResetAll),
        ]
        .prop_map(Op::Bulk),
    ]
}

/// The row's columns the lifecycle writes (`updated_at` aside).
#[derive(Debug, Clone, PartialEq, sqlx::FromRow)]
struct Snapshot {
    geocode_status: GeocodeStatus,
    step_order: i32,
    parsed_step: i32,
    attempts: i32,
    lat: Option<f64>,
    lon: Option<f64>,
    provider: Option<String>,
    error: Option<String>,
    claimed_at: Option<chrono::DateTime<chrono::Utc>>,
    llm_lease: Option<i64>,
    next_attempt_at: chrono::DateTime<chrono::Utc>,
    location_raw: String,
    city: Option<String>,
    regions: Vec<String>,
    country_code: Option<String>,
}

impl Snapshot {
    fn kind(&self) -> LocationKind {
        LocationKind::of(KindColumns {
            step_order: self.step_order,
            location_raw: &self.location_raw,
            city: self.city.as_deref(),
            regions: &self.regions,
            country_code: self.country_code.as_deref(),
        })
    }
}

async fn snapshot(pool: &PgPool, id: i64) -> Snapshot {
    sqlx::query_as(
        "SELECT geocode_status, step_order, parsed_step, attempts, lat, lon, provider, error,
                claimed_at, llm_lease, next_attempt_at, location_raw, city, regions, country_code
         FROM band_locations WHERE id = $1",
    )
    .bind(id)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// A fresh band with one `pending` row: a place (Bergen) or a row naming only its country.
async fn fresh_row(pool: &PgPool, country_only: bool) -> i64 {
    sqlx::query("TRUNCATE bands CASCADE")
        .execute(pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO bands (ma_id, name, country, country_code) VALUES (1, 'B', 'Norway', 'NO')",
    )
    .execute(pool)
    .await
    .unwrap();
    let (raw, city) = if country_only {
        ("Norway", None)
    } else {
        ("Bergen", Some("Bergen"))
    };
    sqlx::query_scalar(
        "INSERT INTO band_locations (ma_id, step_order, parsed_step, location_raw, city,
                                     country, country_code)
         VALUES (1, 0, 0, $1, $2, 'Norway', 'NO') RETURNING id",
    )
    .bind(raw)
    .bind(city)
    .fetch_one(pool)
    .await
    .unwrap()
}

/// Time passes: the row is due (backoffs and leases are not what this test is about).
async fn make_due(pool: &PgPool, id: i64) {
    sqlx::query(
        "UPDATE band_locations SET next_attempt_at = now() - interval '1 second' WHERE id = $1",
    )
    .bind(id)
    .execute(pool)
    .await
    .unwrap();
}

fn fields() -> DoneFields {
    DoneFields {
        lat: 60.4,
        lon: 5.3,
        provider: "test".into(),
        confidence: Some(0.9),
        granularity: Some("city".into()),
        query: None,
    }
}

/// The walk's state: the tokens held and what the model expects.
struct Walk {
    id: i64,
    claim: Option<GeocodeClaim>,
    stale_claim: Option<GeocodeClaim>,
    lease: Option<LlmLease>,
}

/// What a step should do: `Some(status)` = applied, ending in that status; `None` = refused
/// (the row must not change at all). `Skip` = the step needs a token the walk does not
/// hold, which does not compile in real code, so it is not taken.
enum Expect {
    Applied(GeocodeStatus),
    Refused,
    Skip,
}

fn expect(op: Op, before: &Snapshot, w: &Walk) -> Expect {
    use GeocodeStatus as S;
    let s = before.geocode_status;
    let claim_live = w
        .claim
        .is_some_and(|c| s == S::Processing && before.claimed_at == Some(c.claimed_at()));
    let geo = |to: S| match w.claim {
        None => Expect::Skip,
        Some(_) if claim_live => Expect::Applied(to),
        Some(_) => Expect::Refused,
    };
    // A lease applies once, while the row still carries its token (a later claim, any exit
    // or an admin's action ends it).
    let leased = |to: S| match w.lease {
        None => Expect::Skip,
        Some(l)
            if s == S::LlmNeeded
                && before.step_order != MANUAL_STEP
                && before.llm_lease == Some(l.token()) =>
        {
            Expect::Applied(to)
        }
        Some(_) => Expect::Refused,
    };
    match op {
        Op::Claim => match s {
            S::Pending => Expect::Applied(S::Processing),
            _ => Expect::Refused,
        },
        Op::GeoDone { stale: true } | Op::GeoCountryOnly { stale: true } => match w.stale_claim {
            None => Expect::Skip,
            Some(_) => Expect::Refused,
        },
        Op::GeoDone { stale: false } => geo(S::Done),
        Op::GeoCountryOnly { stale: false } => geo(S::CountryOnly),
        Op::GeoFail { to_llm } => {
            let llm = to_llm || before.attempts + 1 >= MAX_ATTEMPTS;
            geo(if llm { S::LlmNeeded } else { S::Pending })
        }
        Op::GeoError => geo(S::Error),
        Op::GeoWait | Op::GeoRelease => geo(S::Pending),
        // A stuck row counts an attempt; the last one ends in `error`.
        Op::RepairStuck => match s {
            S::Processing if before.attempts + 1 >= MAX_ATTEMPTS => Expect::Applied(S::Error),
            S::Processing => Expect::Applied(S::Pending),
            _ => Expect::Refused,
        },
        Op::LlmClaim => match s {
            S::LlmNeeded => Expect::Applied(S::LlmNeeded),
            _ => Expect::Refused,
        },
        Op::LlmDone => leased(S::Done),
        Op::LlmManual => leased(S::Manual),
        Op::LlmError => leased(S::Error),
        Op::LlmRetry | Op::LlmPostpone => leased(S::LlmNeeded),
        Op::DoneUnclaimed => match before.step_order {
            MANUAL_STEP => Expect::Refused,
            _ => Expect::Applied(S::Done),
        },
        Op::ManualPoint => Expect::Applied(S::Done),
        Op::Requeue => Expect::Applied(S::Pending),
        Op::Bulk(b) if b.statuses().contains(&s) => Expect::Applied(S::Pending),
        Op::Bulk(_) => Expect::Refused,
    }
}

/// Runs `op`; returns whether the database applied it.
async fn apply(pool: &PgPool, op: Op, w: &mut Walk) -> bool {
    let f = fields();
    match op {
        Op::Claim => {
            let got = claim::claim(pool).await.unwrap();
            if let Some(row) = &got {
                w.stale_claim = w.claim.take();
                w.claim = Some(row.claim());
            }
            got.is_some()
        }
        Op::GeoDone { stale } | Op::GeoCountryOnly { stale } => {
            let c = if stale { w.stale_claim } else { w.claim }.expect("expect() skips");
            if matches!(op, Op::GeoDone { .. }) {
                done::mark_done(pool, DoneBy::Geocoder(&c), &f)
                    .await
                    .unwrap()
                    .is_some()
            } else {
                let row = Finished {
                    claim: c,
                    status: Finish::CountryOnly,
                    fields: f,
                };
                !done::finish_batch(pool, &[row]).await.unwrap().is_empty()
            }
        }
        Op::GeoFail { to_llm } => {
            let c = w.claim.expect("expect() skips");
            exits::record_failure(pool, &c, "boom", to_llm)
                .await
                .unwrap()
                .is_some()
        }
        Op::GeoError => exits::mark_error(pool, &w.claim.expect("skip"), "fatal")
            .await
            .unwrap(),
        Op::GeoWait => {
            let (first, max) = (Duration::from_secs(1), Duration::from_secs(2));
            let c = w.claim.expect("skip");
            exits::wait(pool, &c, "waiting: x", first, max)
                .await
                .unwrap()
        }
        Op::GeoRelease => {
            exits::release(pool, &[w.claim.expect("skip")])
                .await
                .unwrap()
                == 1
        }
        Op::RepairStuck => upkeep::repair_stuck(pool, Duration::ZERO).await.unwrap() == 1,
        Op::LlmClaim => {
            let got = llm::claim(pool).await.unwrap();
            if let Some(row) = &got {
                w.lease = Some(row.lease());
            }
            got.is_some()
        }
        Op::LlmDone => {
            let l = w.lease.expect("skip");
            done::mark_done(pool, DoneBy::Llm(&l), &f)
                .await
                .unwrap()
                .is_some()
        }
        Op::LlmManual => llm::mark_manual(pool, &w.lease.expect("skip"), "why", None)
            .await
            .unwrap(),
        Op::LlmError => llm::mark_error(pool, &w.lease.expect("skip"), "fatal")
            .await
            .unwrap(),
        Op::LlmRetry => llm::mark_retry(pool, &w.lease.expect("skip"), "again")
            .await
            .unwrap(),
        Op::LlmPostpone => {
            let l = w.lease.expect("skip");
            llm::postpone(pool, &l, Duration::from_secs(60), "quota")
                .await
                .unwrap()
        }
        Op::DoneUnclaimed => done::mark_done(pool, DoneBy::Unclaimed(w.id), &f)
            .await
            .unwrap()
            .is_some(),
        Op::ManualPoint => {
            let mut tx = pool.begin().await.unwrap();
            let hit =
                manual_point::set_manual_point(&mut tx, w.id, Point::new(59.9, 10.7).unwrap())
                    .await
                    .unwrap();
            tx.commit().await.unwrap();
            hit.is_some()
        }
        Op::Requeue => {
            let mut tx = pool.begin().await.unwrap();
            let hit = requeue_one(&mut tx, w.id).await.unwrap();
            tx.commit().await.unwrap();
            hit
        }
        Op::Bulk(b) => {
            let mut tx = pool.begin().await.unwrap();
            let moved = bulk_requeue(&mut tx, b).await.unwrap();
            tx.commit().await.unwrap();
            moved.values().sum::<u64>() == 1
        }
    }
}

/// The CHECK constraints and the lifecycle's invariants.
async fn check_row(pool: &PgPool, id: i64, s: &Snapshot) -> Result<(), TestCaseError> {
    let checks_hold: bool = sqlx::query_scalar(
        "SELECT geocode_status = ANY($2) AND step_order >= -1 AND parsed_step >= 0
                AND attempts >= 0 AND (lat IS NULL OR lat BETWEEN -90 AND 90)
                AND (lon IS NULL OR lon BETWEEN -180 AND 180)
         FROM band_locations WHERE id = $1",
    )
    .bind(id)
    .bind(&GeocodeStatus::ALL[..])
    .fetch_one(pool)
    .await
    .unwrap();
    prop_assert!(checks_hold, "CHECK constraints: {s:?}");
    let processing = s.geocode_status == GeocodeStatus::Processing;
    prop_assert_eq!(
        processing,
        s.claimed_at.is_some(),
        "claim token iff processing"
    );
    if s.llm_lease.is_some() {
        prop_assert_eq!(
            s.geocode_status,
            GeocodeStatus::LlmNeeded,
            "an LLM lease only on a row of the LLM's queue"
        );
    }
    if s.geocode_status.is_located() {
        prop_assert!(
            s.lat.is_some() && s.lon.is_some(),
            "located rows have a point"
        );
    }
    if s.step_order == MANUAL_STEP {
        prop_assert_eq!(
            s.geocode_status,
            GeocodeStatus::Done,
            "an override stays done"
        );
        prop_assert_eq!(
            s.provider.as_deref(),
            Some("manual"),
            "no worker wrote over it"
        );
    } else {
        prop_assert_eq!(s.step_order, s.parsed_step);
    }
    Ok(())
}

/// The workers' ops (both flavours of the flagged ones; a plain failure three times, so
/// walks reach the LLM's queue), to choose a legal step from. The admin's ops are always
/// legal: the random steps take them.
fn worker_ops() -> Vec<Op> {
    vec![
        Op::Claim,
        Op::GeoDone { stale: false },
        Op::GeoDone { stale: true },
        Op::GeoCountryOnly { stale: false },
        Op::GeoCountryOnly { stale: true },
        Op::GeoFail { to_llm: false },
        Op::GeoFail { to_llm: false },
        Op::GeoFail { to_llm: false },
        Op::GeoFail { to_llm: true },
        Op::GeoError,
        Op::GeoWait,
        Op::GeoRelease,
        Op::RepairStuck,
        Op::LlmClaim,
        Op::LlmDone,
        Op::LlmManual,
        Op::LlmError,
        Op::LlmRetry,
        Op::LlmPostpone,
    ]
}

/// One step of a walk: the random op, or (`legal`) one the row's state allows, chosen by
/// `pick` — so walks also reach the deep states (the LLM's queue) and not only refusals.
#[derive(Debug, Clone)]
struct Step {
    legal: bool,
    pick: prop::sample::Index,
    op: Op,
}

fn step() -> impl Strategy<Value = Step> {
    (
        prop::bool::weighted(0.7),
        any::<prop::sample::Index>(),
        op(),
    )
        .prop_map(|(legal, pick, op)| Step { legal, pick, op })
}

/// The op a step takes from `before`.
fn choose(st: &Step, before: &Snapshot, w: &Walk) -> Op {
    if !st.legal {
        return st.op;
    }
    let legal: Vec<Op> = worker_ops()
        .into_iter()
        .filter(|&o| matches!(expect(o, before, w), Expect::Applied(_)))
        .collect();
    if legal.is_empty() {
        st.op
    } else {
        *st.pick.get(&legal)
    }
}

async fn walk(pool: &PgPool, country_only: bool, steps: &[Step]) -> Result<(), TestCaseError> {
    let id = fresh_row(pool, country_only).await;
    let mut w = Walk {
        id,
        claim: None,
        stale_claim: None,
        lease: None,
    };
    let kind = snapshot(pool, id).await.kind();
    for st in steps {
        // Time passes: backoffs and leases are over (they are not what this test is about).
        make_due(pool, id).await;
        let before = snapshot(pool, id).await;
        let op = choose(st, &before, &w);
        let expected = expect(op, &before, &w);
        if matches!(expected, Expect::Skip) {
            continue;
        }
        let applied = apply(pool, op, &mut w).await;
        let after = snapshot(pool, id).await;
        match expected {
            Expect::Applied(to) => {
                prop_assert!(applied, "{op:?} refused from {before:?}");
                prop_assert_eq!(after.geocode_status, to, "{:?} from {:?}", op, before);
            }
            Expect::Refused => {
                prop_assert!(!applied, "{op:?} applied from {before:?}");
                prop_assert_eq!(&after, &before, "a refused {:?} changed the row", op);
            }
            Expect::Skip => {}
        }
        check_row(pool, id, &after).await?;
        if after.step_order != MANUAL_STEP {
            prop_assert_eq!(after.kind(), kind, "the kind is kept");
        }
    }
    Ok(())
}

#[test]
fn random_transition_sequences_keep_the_row_valid_and_refuse_illegal_steps() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let db = rt.block_on(TestDb::new());
    let mut runner = TestRunner::new(Config {
        cases: 64,
        failure_persistence: None,
        ..Config::default()
    });
    let strategy = (any::<bool>(), proptest::collection::vec(step(), 1..32));
    let result = runner.run(&strategy, |(country_only, steps)| {
        rt.block_on(walk(&db.pool, country_only, &steps))
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}
