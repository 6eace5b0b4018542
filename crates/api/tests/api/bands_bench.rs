#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Benchmark (ignored by default): `GET /admin/api/bands` latency on 150,000 bands, and the
//! EXPLAIN plans of its queries: the SQL list (the fallback, the baseline) and the in-memory
//! search in the same run, in process, then through HTTP. Prints figures; asserts nothing
//! about time (only that both give the same answer).
//!
//! `cargo test --release -p bandmap-api --test api bands_bench -- --ignored --nocapture`

use bandmap_api::admin::bands::BandListParams;
use bandmap_db::bands::admin as db;
use bandmap_test_support::spawn_app;
use reqwest::Method;
use std::time::Instant;

const BANDS: i64 = 150_000;
const RUNS: usize = 200;

const FILL: &str = "
INSERT INTO bands (ma_id, name, country, country_code, location_text, genre, themes, status,
                   formed_year, lat, lon, locked_fields, crawler_pending, data)
SELECT i,
       initcap(w1.w || ' ' || w2.w) || ' ' || substr(md5(i::text), 1, 4),
       c.name, c.code,
       initcap(substr(md5('l' || i), 1, 7)) || ', ' || c.name,
       g.g,
       initcap(substr(md5('t' || i), 1, 6)) || ', ' || (ARRAY['War','Death','Nature','Occultism','Misanthropy','Mythology'])[1 + i % 6],
       (ARRAY['Active','Split-up','On hold','Unknown','Changed name'])[1 + i % 5],
       1970 + (i % 55),
       CASE WHEN i % 3 = 0 THEN 40 + (i % 30) * 0.5 END,
       CASE WHEN i % 3 = 0 THEN (i % 40) * 0.5 END,
       CASE WHEN i % 100 = 0 THEN '{genre}'::text[] ELSE '{}' END,
       CASE WHEN i % 100 = 0 THEN jsonb_build_object('genre', 'Upstream ' || g.g) ELSE '{}' END,
       jsonb_build_object('url', 'https://www.metal-archives.com/bands/x/' || i)
FROM generate_series(1, $1::bigint) AS i
CROSS JOIN LATERAL (SELECT (ARRAY['dark','black','storm','frost','blood','iron','night','grave',
        'wolf','death','doom','fire','shadow','throne','moon','raven','cult','void','ash','bone'])
        [1 + (i * 7) % 20] AS w) w1
CROSS JOIN LATERAL (SELECT (ARRAY['ritual','legion','altar','winter','funeral','serpent','crypt',
        'pyre','horde','oath','spire','tomb','wraith','gate','reign','blade','fog'])
        [1 + (i * 13) % 17] AS w) w2
CROSS JOIN LATERAL (SELECT (ARRAY['Black Metal','Death Metal','Heavy Metal','Thrash Metal',
        'Doom Metal','Black/Death Metal','Power Metal','Progressive Metal','Folk Metal',
        'Melodic Death Metal','Gothic Metal','Symphonic Black Metal','Grindcore','Sludge Metal',
        'Speed Metal','Viking Metal','Atmospheric Black Metal','Death/Doom Metal'])
        [1 + (i * 11) % 18] AS g) g
CROSS JOIN LATERAL (SELECT
        (ARRAY['Norway','Sweden','Finland','Germany','France','Poland','Italy','Spain','Greece',
               'Netherlands','United Kingdom','Czechia'])[1 + (i * 5) % 12] AS name,
        (ARRAY['NO','SE','FI','DE','FR','PL','IT','ES','GR','NL','GB','CZ'])[1 + (i * 5) % 12] AS code
    ) c";

fn filter(query: &str) -> db::BandFilter {
    let uri: axum::http::Uri = format!("/x?{query}").parse().unwrap();
    axum::extract::Query::<BandListParams>::try_from_uri(&uri)
        .unwrap()
        .0
        .into_filter()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "benchmark: run explicitly with --ignored --nocapture"]
async fn bands_list_latency_on_150k_bands() {
    let app = spawn_app().await;
    let t = Instant::now();
    sqlx::query(FILL)
        .bind(BANDS)
        .execute(&app.db.pool)
        .await
        .unwrap();
    // Steady state, as autovacuum leaves a table after a bulk load (hint bits, visibility
    // map); without it the first scans of every case pay for setting hint bits.
    sqlx::query("VACUUM ANALYZE bands")
        .execute(&app.db.pool)
        .await
        .unwrap();
    println!("filled {BANDS} bands in {:?}", t.elapsed());
    let (t, rss) = (Instant::now(), rss_kib());
    app.state
        .read
        .band_search
        .load_now(&app.db.pool)
        .await
        .unwrap();
    println!(
        "search copy loaded in {:?}; RSS {} → {} MiB",
        t.elapsed(),
        rss / 1024,
        rss_kib() / 1024
    );
    let cookie = app.login().await;
    let cases = [
        "",
        "q=storm",
        "q=ritual%20a",
        "q=123456",
        "genre=black",
        "genre=sludge",
        "has_conflict=true",
        "q=storm&genre=black&has_conflict=true",
        "q=frost&genre=death",
        "location_q=norway",
        "themes_q=occult",
        "country=no&status=active",
        "has_lat=true&sort=-formed_year",
        "genre=metal&offset=5000",
    ];
    println!(
        "\n| query | total | SQL list p50 / p95 ms | search p50 / p95 ms | p50 search ÷ SQL | \
         HTTP p50 / p95 / max ms |\n|---|---:|---:|---:|---:|---:|"
    );
    let pool = &app.db.pool;
    let search = &app.state.read.band_search;
    for q in cases {
        let f = filter(q);
        let sql = time(|| async {
            db::list_bands_sql(pool, &f).await.unwrap();
        })
        .await;
        let mem = time(|| async {
            bandmap_index::band_search::list_bands(pool, search, &f)
                .await
                .unwrap();
        })
        .await;
        let path = format!("/admin/api/bands?{q}");
        let total = std::cell::Cell::new(0);
        let http = time(|| async {
            let res = app.admin(Method::GET, &path, &cookie).send().await.unwrap();
            assert_eq!(res.status(), 200);
            let body: serde_json::Value = res.json().await.unwrap();
            total.set(body["total"].as_i64().unwrap());
        })
        .await;
        let total = total.get();
        let (want_items, want_total) = db::list_bands_sql(pool, &f).await.unwrap();
        let (items, got_total) = bandmap_index::band_search::list_bands(pool, search, &f)
            .await
            .unwrap();
        assert_eq!((got_total, total), (want_total, want_total), "{q}");
        let ids = |v: &[db::BandListItem]| v.iter().map(|b| b.ma_id).collect::<Vec<_>>();
        assert_eq!(ids(&items), ids(&want_items), "{q}");
        println!(
            "| `{q}` | {total} | {:.1} / {:.1} | {:.1} / {:.1} | {:.2} | {:.1} / {:.1} / {:.1} |",
            sql.p50,
            sql.p95,
            mem.p50,
            mem.p95,
            mem.p50 / sql.p50,
            http.p50,
            http.p95,
            http.max
        );
    }
    println!("\n### refresh (the changes since the copy's snapshot, before every list)\n");
    println!(
        "```\n{}\n```",
        search.explain_refresh(pool).await.unwrap().join("\n")
    );
    for q in ["q=storm", "genre=black", "has_lat=true&sort=-formed_year"] {
        let f = filter(q);
        let selection = search.select(pool, &f).await.unwrap().unwrap();
        let page = db::explain_selected_page(pool, &selection, &f)
            .await
            .unwrap();
        println!("\n### page of `{q}`\n\n```\n{}\n```", page.join("\n"));
    }
    for q in ["q=storm", "genre=black", "has_conflict=true"] {
        let (page, count) = db::explain(pool, &filter(q)).await.unwrap();
        // The collect plan counts inside the page query: no second plan.
        let count = if count.is_empty() {
            "(in the page query: `(SELECT count(*) FROM m)`)".to_string()
        } else {
            format!("```\n{}\n```", count.join("\n"))
        };
        println!(
            "\n### SQL fallback, `{q}`\n\npage:\n```\n{}\n```\ncount:\n{count}",
            page.join("\n")
        );
    }
}

/// Percentiles of [`RUNS`] sequential runs, in milliseconds.
struct Figures {
    p50: f64,
    p95: f64,
    max: f64,
}

async fn time<F, Fut>(mut run: F) -> Figures
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let t = Instant::now();
        run().await;
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((times.len() as f64 - 1.0) * p).round() as usize];
    Figures {
        p50: pct(0.5),
        p95: pct(0.95),
        max: times[times.len() - 1],
    }
}

/// Resident set size of this process (the server runs in it), KiB.
fn rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}
