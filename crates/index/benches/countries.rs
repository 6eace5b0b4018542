//! In-process benchmark of `GET /api/countries`' counts (issue 31): 150,000 synthetic bands
//! (35 countries, 60 genres, 3 statuses, years 1970–2024) in a fresh database, then per
//! request time of the SQL the endpoint ran before (`bandmap_db::country_counts`, two full
//! scans of `bands` for a family filter) against the in-memory copy, measured in the same
//! run on the same data, for the density layer's usual filters. Also the copy's load time
//! and size.
//!
//! Needs TEST_DATABASE_URL (as the tests). `cargo bench -p bandmap-index --bench countries
//! -- [--bands N]`
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_db::country_counts::{self, CountryFilter};
use bandmap_index::countries::CountryQuery;
use bandmap_index::map::Family;
use bandmap_index::name_search;
use bandmap_test_support::TestDb;
use std::time::{Duration, Instant};

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn queries() -> Vec<(&'static str, CountryQuery)> {
    let q = CountryQuery::default;
    vec![
        ("no filter", q()),
        (
            "genre=death",
            CountryQuery {
                genre: Some("death".into()),
                ..q()
            },
        ),
        (
            "years 1990-1999",
            CountryQuery {
                year_min: Some(1990),
                year_max: Some(1999),
                ..q()
            },
        ),
        (
            "family=black,doom",
            CountryQuery {
                families: Family::Black.bit() | Family::Doom.bit(),
                ..q()
            },
        ),
        (
            "country=NO, status=active",
            CountryQuery {
                country: Some("NO".into()),
                status: Some("active".into()),
                ..q()
            },
        ),
    ]
}

async fn sql(pool: &sqlx::PgPool, q: &CountryQuery) -> usize {
    let filter = CountryFilter {
        genre: q.genre.clone(),
        country: q.country.clone(),
        status: q.status.clone(),
        year_min: q.year_min,
        year_max: q.year_max,
    };
    if q.families == 0 {
        country_counts::count_by_country(pool, &filter)
            .await
            .unwrap()
            .len()
    } else {
        let rows = country_counts::count_by_country_and_genre(pool, &filter)
            .await
            .unwrap();
        let mask = q.families;
        country_counts::fold_kept(rows, |g| Family::of_genre(g).bit() & mask != 0).len()
    }
}

fn per_request(total: Duration, n: u32) -> f64 {
    total.as_secs_f64() * 1000.0 / f64::from(n)
}

fn main() {
    let bands = arg("--bands", 150_000);
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let db = TestDb::new().await;
        sqlx::query(
            "INSERT INTO bands (ma_id, name, country, country_code, genre, status, formed_year)
             SELECT g, 'Band ' || g,
                    (ARRAY['Norway','Sweden','Finland','Germany','France','Poland','Italy','Spain',
                           'Greece','Czechia'])[1 + g % 10] || CASE WHEN g % 35 > 9 THEN ' ' || (g % 35) ELSE '' END,
                    chr((65 + g % 26)::int) || chr((65 + (g / 26) % 9)::int),
                    (ARRAY['Black','Death','Doom','Thrash','Heavy','Power','Folk','Gothic','Grindcore',
                           'Progressive'])[1 + g % 10] || ' Metal' || CASE WHEN g % 60 > 9 THEN ' ' || (g % 60) ELSE '' END,
                    (ARRAY['Active','Split-up','On hold'])[1 + g % 3],
                    1970 + g % 55
             FROM generate_series(1, $1) g",
        )
        .bind(bands as i64)
        .execute(&db.pool)
        .await
        .unwrap();
        sqlx::query("ANALYZE bands").execute(&db.pool).await.unwrap();
        let started = Instant::now();
        let copy = name_search::load_countries(&db.pool).await.unwrap();
        println!(
            "{bands} bands: copy of {} groups ({:.1} MB) loaded in {:.0} ms",
            copy.len(),
            copy.bytes() as f64 / 1e6,
            started.elapsed().as_secs_f64() * 1000.0
        );
        println!("{:<28} {:>12} {:>12} {:>9}", "filter", "SQL ms/req", "copy ms/req", "speed-up");
        for (label, q) in queries() {
            assert_eq!(sql(&db.pool, &q).await, copy.count(&q).len(), "{label}");
            let rounds = 5;
            let t = Instant::now();
            for _ in 0..rounds {
                sql(&db.pool, &q).await;
            }
            let sql_ms = per_request(t.elapsed(), rounds);
            let reps = 200;
            let t = Instant::now();
            for _ in 0..reps {
                std::hint::black_box(copy.count(std::hint::black_box(&q)));
            }
            let mem_ms = per_request(t.elapsed(), reps);
            println!(
                "{label:<28} {sql_ms:>12.2} {mem_ms:>12.3} {:>8.0}x",
                sql_ms / mem_ms.max(1e-9)
            );
        }
    });
}
