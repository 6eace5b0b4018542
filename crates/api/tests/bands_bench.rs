#![allow(clippy::unwrap_used, clippy::expect_used)]
//! Benchmark (ignored by default): `GET /admin/api/bands` latency on 150,000 bands, and the
//! EXPLAIN plans of its queries. Prints figures; asserts nothing about time.
//!
//! `cargo test --release -p bandmap-api --test bands_bench -- --ignored --nocapture`

use bandmap_api::admin::bands::BandListParams;
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

fn filter(query: &str) -> bandmap_db::bands::admin::BandFilter {
    let uri: axum::http::Uri = format!("/x?{query}").parse().unwrap();
    axum::extract::Query::<BandListParams>::try_from_uri(&uri)
        .unwrap()
        .0
        .into_filter()
        .unwrap()
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
    println!("\n| query | total | p50 ms | p95 ms | max ms |\n|---|---|---|---|---|");
    for q in cases {
        let path = format!("/admin/api/bands?{q}");
        let mut times = Vec::with_capacity(RUNS);
        let mut total = 0;
        for _ in 0..RUNS {
            let t = Instant::now();
            let res = app.admin(Method::GET, &path, &cookie).send().await.unwrap();
            assert_eq!(res.status(), 200);
            let body: serde_json::Value = res.json().await.unwrap();
            times.push(t.elapsed().as_secs_f64() * 1000.0);
            total = body["total"].as_i64().unwrap();
        }
        times.sort_by(f64::total_cmp);
        let pct = |p: f64| times[((times.len() as f64 - 1.0) * p).round() as usize];
        println!(
            "| `{q}` | {total} | {:.1} | {:.1} | {:.1} |",
            pct(0.5),
            pct(0.95),
            times[times.len() - 1]
        );
    }
    for q in [
        "q=storm",
        "genre=black",
        "has_conflict=true",
        "q=storm&genre=black&has_conflict=true",
        "location_q=norway",
        "themes_q=occult",
    ] {
        let (page, count) = bandmap_db::bands::admin::explain(&app.db.pool, &filter(q))
            .await
            .unwrap();
        // The collect plan counts inside the page query: no second plan.
        let count = if count.is_empty() {
            "(in the page query: `(SELECT count(*) FROM m)`)".to_string()
        } else {
            format!("```\n{}\n```", count.join("\n"))
        };
        println!(
            "\n### `{q}`\n\npage:\n```\n{}\n```\ncount:\n{count}",
            page.join("\n")
        );
    }
}
