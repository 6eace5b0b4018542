//! Enqueue throughput on 100,000 synthetic bands (issue 3 "Done when": a full enqueue of
//! 100,000 bands in under 10 s). Creates its own database (test-support: a fresh migrated
//! clone on `TEST_DATABASE_URL`, default the local server), inserts the bands with a
//! realistic mix of MA location forms, then prints:
//!
//! - parser throughput (locations/s) over the same strings;
//! - one full enqueue scan (`run_once`): seconds, bands/s, rows/s into PostgreSQL;
//! - a second scan (idempotent: creates nothing);
//! - a baseline in the same run: a plain `INSERT … SELECT` of 100,000 trivial rows into an
//!   unindexed temp table, and the enqueue time as a ratio of it.
//!
//! Run with `cargo bench -p bandmap-enqueue`. No criterion: one timed pass, figures printed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_enqueue::run_once;
use bandmap_location::parse;
use bandmap_test_support::TestDb;
use std::hint::black_box;
use std::time::Instant;

const N: i64 = 100_000;

/// (location_text, country name, code). Weighted towards the simple forms MA mostly
/// holds; `{}` is replaced by a number so places are not all identical.
const FORMS: &[(&str, &str, &str)] = &[
    ("Oslo", "Norway", "NO"),
    ("Town{}", "Norway", "NO"),
    ("Bergen{}, Vestland", "Norway", "NO"),
    ("Stockholm", "Sweden", "SE"),
    ("Strängnäs{}, Södermanland", "Sweden", "SE"),
    ("Aachen{}, North Rhine-Westphalia", "Germany", "DE"),
    ("Berlin", "Germany", "DE"),
    ("Poznań{}, Wielkopolskie", "Poland", "PL"),
    ("Harlow{}, Essex, England", "United Kingdom", "GB"),
    ("N/A", "Finland", "FI"),
    ("Unknown", "Italy", "IT"),
    ("Tampere{} \\ Helsinki", "Finland", "FI"),
    ("Lyon{}/Paris", "France", "FR"),
    (
        "Sandviken{}, Gävleborg (early); Stockholm (later)",
        "Sweden",
        "SE",
    ),
    (
        "Bergen{} (early), Bø (mid), Limousin, France (later)",
        "Norway",
        "NO",
    ),
    ("Francofonte{} (Syracuse)/Catania, Sicily", "Italy", "IT"),
    ("Санкт-Петербург{}", "Russia", "RU"),
    ("Θεσσαλονίκη{}, Κεντρική Μακεδονία", "Greece", "GR"),
    ("İstanbul{}", "Türkiye", "TR"),
    ("Praha{}", "Czechia", "CZ"),
];

fn band(i: i64) -> (String, &'static str, &'static str) {
    let (form, country, code) = FORMS[(i as usize) % FORMS.len()];
    (form.replace("{}", &(i % 4_000).to_string()), country, code)
}

fn rate(n: f64, secs: f64) -> String {
    format!("{:>10.0}/s", n / secs)
}

async fn insert_bands(pool: &sqlx::PgPool) {
    let (mut ids, mut names, mut texts, mut countries, mut codes) =
        (vec![], vec![], vec![], vec![], vec![]);
    for i in 1..=N {
        let (text, country, code) = band(i);
        ids.push(i * 3); // gaps, like real ids
        names.push(format!("Band {i}"));
        texts.push(text);
        countries.push(country);
        codes.push(code);
    }
    sqlx::query(
        "INSERT INTO bands (ma_id, name, location_text, country, country_code)
         SELECT * FROM UNNEST($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[])",
    )
    .bind(&ids)
    .bind(&names)
    .bind(&texts)
    .bind(&countries)
    .bind(&codes)
    .execute(pool)
    .await
    .unwrap();
    sqlx::query("ANALYZE bands").execute(pool).await.unwrap();
}

fn parser_throughput() -> (usize, f64) {
    let inputs: Vec<_> = (1..=N).map(band).collect();
    for (t, _, c) in inputs.iter().take(1_000) {
        black_box(parse(t, Some(c)));
    }
    let started = Instant::now();
    let mut places = 0;
    for (t, _, c) in &inputs {
        places += black_box(parse(black_box(t), Some(c)))
            .iter()
            .map(|s| s.places.len())
            .sum::<usize>();
    }
    (places, started.elapsed().as_secs_f64())
}

async fn baseline(pool: &sqlx::PgPool) -> f64 {
    let mut conn = pool.acquire().await.unwrap();
    sqlx::query("CREATE TEMP TABLE baseline (id bigint, raw text, n int)")
        .execute(&mut *conn)
        .await
        .unwrap();
    let started = Instant::now();
    sqlx::query("INSERT INTO baseline SELECT g, 'place ' || g, 0 FROM generate_series(1, $1) g")
        .bind(N)
        .execute(&mut *conn)
        .await
        .unwrap();
    started.elapsed().as_secs_f64()
}

/// The table's own floor: the same rows re-inserted into `band_locations` with one plain
/// `INSERT … SELECT` (same indexes, triggers and WAL), no parsing, no transfer.
async fn table_floor(pool: &sqlx::PgPool) -> (u64, f64) {
    let mut conn = pool.acquire().await.unwrap();
    let cols = "ma_id, step_order, parsed_step, step_label, location_raw, city, regions, \
                country, country_code, geocode_status, lat, lon, confidence, provider, \
                geocode_granularity";
    sqlx::query(sqlx::AssertSqlSafe(format!(
        "CREATE TEMP TABLE saved AS SELECT {cols} FROM band_locations"
    )))
    .execute(&mut *conn)
    .await
    .unwrap();
    sqlx::query("TRUNCATE band_locations")
        .execute(&mut *conn)
        .await
        .unwrap();
    let started = Instant::now();
    let n = sqlx::query(sqlx::AssertSqlSafe(format!(
        "INSERT INTO band_locations ({cols}) SELECT {cols} FROM saved"
    )))
    .execute(&mut *conn)
    .await
    .unwrap()
    .rows_affected();
    (n, started.elapsed().as_secs_f64())
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let db = TestDb::new().await;
        let p = &db.pool;

        let started = Instant::now();
        insert_bands(p).await;
        println!(
            "setup: {N} bands inserted in {:.2} s",
            started.elapsed().as_secs_f64()
        );

        let (places, secs) = parser_throughput();
        println!(
            "parser:   {N} locations in {secs:.3} s = {} locations ({places} places)",
            rate(N as f64, secs)
        );

        let started = Instant::now();
        let r = run_once(p, None).await.unwrap();
        let secs = started.elapsed().as_secs_f64();
        println!(
            "enqueue:  {} bands in {secs:.3} s = {} bands, {} rows ({})",
            r.bands,
            rate(r.bands as f64, secs),
            rate(r.created as f64, secs),
            r.summary()
        );
        assert_eq!(r.bands, N as u64);
        assert_eq!(r.failed, 0);

        let started = Instant::now();
        let again = run_once(p, None).await.unwrap();
        println!(
            "rescan:   {:.3} s, {}",
            started.elapsed().as_secs_f64(),
            again.summary()
        );

        let base = baseline(p).await;
        println!(
            "baseline: INSERT … SELECT of {N} trivial rows into a temp table in {base:.3} s = {}",
            rate(N as f64, base)
        );
        let (floor_rows, floor) = table_floor(p).await;
        println!(
            "floor:    INSERT … SELECT of the same {floor_rows} rows into band_locations in {floor:.3} s = {}",
            rate(floor_rows as f64, floor)
        );
        println!(
            "ratio:    full enqueue / trivial baseline = {:.1}x; / band_locations floor = {:.2}x",
            secs / base,
            secs / floor
        );
        println!(
            "target:   full enqueue of {N} bands < 10 s: {} ({secs:.2} s)",
            if secs < 10.0 { "met" } else { "NOT met" }
        );
    });
}
