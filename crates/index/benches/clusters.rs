//! In-process benchmark of the map index (bench/clusters/run.sh runs it): 150,000 synthetic
//! points placed on European towns weighted by population (data/gazetteer/europe.tsv, or
//! Gaussian blobs when absent), snapshot build time, cluster query times per zoom with and
//! without a genre filter, never-seen filter queries, repeated filtered queries.
//!
//! `cargo bench -p bandmap-index --bench clusters -- [--write DIR] [--points N]` also writes
//! `bands.tsv`, `locations.tsv` (COPY format) and `points.tsv` (lon, lat) into DIR.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use bandmap_index::map::{Bbox, ClusterQuery, Filter, PointRow, Snapshot};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use std::io::Write;
use std::time::{Duration, Instant};

const STYLES: &[&str] = &[
    "Black",
    "Death",
    "Thrash",
    "Heavy",
    "Doom",
    "Power",
    "Progressive",
    "Folk",
    "Speed",
    "Gothic",
    "Symphonic",
    "Melodic Death",
    "Sludge",
    "Stoner",
    "Viking",
    "Pagan",
    "Atmospheric Black",
    "Technical Death",
    "Brutal Death",
    "Groove",
    "Industrial",
    "Avant-garde",
    "Crust",
    "Post-",
];
const STATUSES: &[(&str, u32)] = &[
    ("Active", 60),
    ("Split-up", 30),
    ("On hold", 5),
    ("Changed name", 3),
    ("Unknown", 2),
];

/// A viewport of 1920×1080 px centred on (10°E, 50°N) at `zoom` (the HTTP benchmark uses the
/// same boxes).
pub fn viewport(zoom: u8) -> Bbox {
    let scale = 256.0 * f64::from(1u32 << zoom);
    let (cx, cy) = (10.0f64, 50.0f64);
    let x = (cx + 180.0) / 360.0 * scale;
    let y = (1.0
        - (cy.to_radians().tan() + 1.0 / cy.to_radians().cos()).ln() / std::f64::consts::PI)
        / 2.0
        * scale;
    let lon = |px: f64| (px / scale * 360.0 - 180.0).clamp(-180.0, 180.0);
    let lat = |py: f64| {
        let n = std::f64::consts::PI * (1.0 - 2.0 * py / scale);
        n.sinh().atan().to_degrees().clamp(-85.0, 85.0)
    };
    Bbox {
        min_lon: lon(x - 960.0),
        min_lat: lat(y + 540.0),
        max_lon: lon(x + 960.0),
        max_lat: lat(y - 540.0),
    }
}

struct Town {
    name: String,
    cc: String,
    lat: f64,
    lon: f64,
    weight: f64,
}

fn towns() -> Vec<Town> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../data/gazetteer/europe.tsv"
    );
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("note: {path} missing; using synthetic Gaussian towns");
        let mut rng = StdRng::seed_from_u64(7);
        return (0..20_000)
            .map(|i| Town {
                name: format!("Town {i}"),
                cc: "XX".into(),
                lat: rng.random_range(36.0..70.0),
                lon: rng.random_range(-10.0..40.0),
                weight: 1000.0 / (1.0 + f64::from(i % 1000)),
            })
            .collect();
    };
    text.lines()
        .filter(|l| l.starts_with("P\t"))
        .filter_map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            Some(Town {
                name: f.get(2)?.to_string(),
                cc: f.get(4)?.to_string(),
                lat: f.get(7)?.parse().ok()?,
                lon: f.get(8)?.parse().ok()?,
                weight: f.get(9)?.parse::<f64>().ok()?.max(500.0),
            })
        })
        .collect()
}

/// Synthetic bands: ~2/3 with one located step, ~1/3 with two, until `n_points` points;
/// or, with `n_bands` (`--bands`, the flows benchmark), that many bands of which 36 % have
/// two or more steps (30 % two, 6 % three).
fn generate(n_points: usize, n_bands: Option<usize>) -> Vec<PointRow> {
    let towns = towns();
    let mut cumulative = Vec::with_capacity(towns.len());
    let mut total = 0.0;
    for t in &towns {
        total += t.weight;
        cumulative.push(total);
    }
    let mut rng = StdRng::seed_from_u64(42);
    let pick = |rng: &mut StdRng| {
        let r = rng.random_range(0.0..total);
        &towns[cumulative.partition_point(|&c| c < r).min(towns.len() - 1)]
    };
    let mut rows = Vec::with_capacity(n_points);
    let mut ma_id = 0i64;
    let more = |rows: &Vec<PointRow>, ma_id: i64| match n_bands {
        Some(b) => (ma_id as usize) < b,
        None => rows.len() < n_points,
    };
    while more(&rows, ma_id) {
        ma_id += 1;
        let style = STYLES[rng.random_range(0..STYLES.len())];
        let genre = if rng.random_bool(0.3) {
            format!(
                "{style}/{} Metal",
                STYLES[rng.random_range(0..STYLES.len())]
            )
        } else {
            format!("{style} Metal")
        };
        let mut s = rng.random_range(0..100);
        let status = STATUSES
            .iter()
            .find(|(_, w)| {
                let hit = s < *w;
                s = s.saturating_sub(*w);
                hit
            })
            .map_or("Active", |x| x.0);
        let year = rng.random_bool(0.95).then(|| rng.random_range(1970..2024));
        let steps = match n_bands {
            None => {
                if rng.random_bool(0.33) {
                    2
                } else {
                    1
                }
            }
            Some(_) => match rng.random_range(0..100) {
                0..30 => 2,
                30..36 => 3,
                _ => 1,
            },
        };
        let origin = pick(&mut rng);
        for step in 0..steps {
            if n_bands.is_none() && rows.len() >= n_points {
                break;
            }
            let town = if step == 0 { origin } else { pick(&mut rng) };
            rows.push(PointRow {
                location_id: rows.len() as i64 + 1,
                ma_id,
                lon: town.lon,
                lat: town.lat,
                step_order: step,
                parsed_step: step,
                step_label: (steps > 1).then(|| {
                    if step == 0 {
                        "early".to_string()
                    } else {
                        "later".to_string()
                    }
                }),
                location_raw: town.name.clone(),
                name: format!("Band {ma_id}"),
                genre: Some(genre.clone()),
                country: Some(origin.cc.clone()),
                country_code: Some(origin.cc.clone()),
                status: Some(status.to_string()),
                formed_year: year,
            });
        }
    }
    rows
}

fn tsv(v: Option<&str>) -> String {
    v.map_or("\\N".to_string(), |s| s.replace(['\t', '\n', '\\'], " "))
}

fn write_files(dir: &str, rows: &[PointRow]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let mut bands = std::io::BufWriter::new(std::fs::File::create(format!("{dir}/bands.tsv"))?);
    let mut locs = std::io::BufWriter::new(std::fs::File::create(format!("{dir}/locations.tsv"))?);
    let mut pts = std::io::BufWriter::new(std::fs::File::create(format!("{dir}/points.tsv"))?);
    let mut last = 0;
    for r in rows {
        if r.ma_id != last {
            last = r.ma_id;
            let year = r.formed_year.map_or("\\N".to_string(), |y| y.to_string());
            writeln!(
                bands,
                "{}\t{}\t{}\t{}\t{}\t{}\t{year}\t{}\t{}",
                r.ma_id,
                tsv(Some(&r.name)),
                tsv(r.genre.as_deref()),
                tsv(r.country.as_deref()),
                tsv(r.country_code.as_deref()),
                tsv(r.status.as_deref()),
                r.lat,
                r.lon
            )?;
        }
        writeln!(
            locs,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\tdone",
            r.location_id,
            r.ma_id,
            r.step_order,
            r.step_order,
            tsv(r.step_label.as_deref()),
            tsv(Some(&r.location_raw)),
            r.lat,
            r.lon
        )?;
        writeln!(pts, "{}\t{}", r.lon, r.lat)?;
    }
    Ok(())
}

fn time_many(n: usize, mut f: impl FnMut(usize)) -> (Duration, Duration) {
    let mut t: Vec<Duration> = (0..n)
        .map(|i| {
            let s = Instant::now();
            f(i);
            s.elapsed()
        })
        .collect();
    t.sort();
    (t[n / 2], t[(n * 99) / 100])
}

fn us(d: Duration) -> String {
    format!("{:.1}", d.as_secs_f64() * 1e6)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let n: usize = arg("--points")
        .and_then(|v| v.parse().ok())
        .unwrap_or(150_000);
    let bands: Option<usize> = arg("--bands").and_then(|v| v.parse().ok());
    let rows = generate(n, bands);
    if let Some(dir) = arg("--write") {
        write_files(&dir, &rows).expect("writing bench data");
        println!("wrote {dir}/bands.tsv, locations.tsv, points.tsv");
    }
    let start = Instant::now();
    let snap = Snapshot::build(1, rows);
    let build = start.elapsed();
    println!("inproc points {}", snap.len());
    println!("inproc build_ms {:.1}", build.as_secs_f64() * 1e3);
    println!("inproc snapshot_mb {:.1}", snap.approx_bytes() as f64 / 1e6);
    for zoom in [3u8, 6, 10] {
        for genre in [None, Some("black")] {
            let q = ClusterQuery {
                bbox: viewport(zoom),
                zoom,
                filter: Filter::new(genre, None, None, None, None),
            };
            let features = snap.query(&q).features.len();
            let (p50, p99) = time_many(2000, |_| {
                std::hint::black_box(snap.query(&q));
            });
            let (j50, j99) = time_many(2000, |_| {
                std::hint::black_box(bandmap_index::map::geojson::write(&snap, &snap.query(&q)));
            });
            let label = genre.map_or("none".to_string(), |g| format!("genre={g}"));
            println!(
                "inproc query z{zoom} {label} features {features} p50_us {} p99_us {} with_json_p50_us {} with_json_p99_us {}",
                us(p50),
                us(p99),
                us(j50),
                us(j99)
            );
        }
    }
    // The family breakdown (issue 16): the same queries with and without it, interleaved
    // in rounds so that machine noise hits both alike; query + GeoJSON, no body cache.
    for zoom in [3u8, 6, 10] {
        for genre in [None, Some("black")] {
            let q = ClusterQuery {
                bbox: viewport(zoom),
                zoom,
                filter: Filter::new(genre, None, None, None, None),
            };
            let plain = |_| {
                std::hint::black_box(bandmap_index::map::geojson::write(&snap, &snap.query(&q)));
            };
            let with = |_| {
                let r = snap.query_with(&q, true);
                std::hint::black_box(bandmap_index::map::geojson::write(&snap, &r));
            };
            let (mut a, mut b) = (Vec::new(), Vec::new());
            for _ in 0..5 {
                a.push(time_many(400, plain).0);
                b.push(time_many(400, with).0);
            }
            a.sort();
            b.sort();
            let label = genre.map_or("none".to_string(), |g| format!("genre={g}"));
            println!(
                "inproc breakdown z{zoom} {label} plain_p50_us {} with_p50_us {} ratio {:.3}",
                us(a[2]),
                us(b[2]),
                b[2].as_secs_f64() / a[2].as_secs_f64()
            );
        }
    }
    // Never-seen filters: each query a filter key the cache has not seen (a genre substring
    // × a year bound within the data's 1970–2023, so every filter matches points: a bound
    // beyond the data would make every list empty and the measure meaningless), so the
    // filter index and the level are built from scratch.
    let subs = [
        "black", "death", "doom", "folk", "power", "thrash", "heavy", "viking", "sludge", "post",
    ];
    for zoom in [3u8, 6, 10] {
        let (p50, p99) = time_many(400, |i| {
            let f = Filter::new(
                Some(subs[i % subs.len()]),
                None,
                None,
                Some(1970 + (i / subs.len()) as i32),
                Some(2023 - i32::from(zoom)),
            );
            let q = ClusterQuery {
                bbox: viewport(zoom),
                zoom,
                filter: f,
            };
            std::hint::black_box(snap.query(&q));
        });
        println!(
            "inproc never_seen_genre z{zoom} p50_us {} p99_us {}",
            us(p50),
            us(p99)
        );
    }
    let q = ClusterQuery {
        bbox: viewport(3),
        zoom: 3,
        filter: Filter::new(Some("doom"), None, None, None, None),
    };
    snap.query(&q);
    let (p50, p99) = time_many(2000, |_| {
        std::hint::black_box(snap.query(&q));
    });
    println!(
        "inproc repeated_filter z3 genre=doom p50_us {} p99_us {}",
        us(p50),
        us(p99)
    );
    let world = ClusterQuery {
        bbox: Bbox::WORLD,
        zoom: 3,
        filter: Filter::default(),
    };
    let (p50, p99) = time_many(2000, |_| {
        std::hint::black_box(snap.query(&world));
    });
    println!("inproc world z3 none p50_us {} p99_us {}", us(p50), us(p99));
    flows(&snap);
    for zoom in [3u8, 6, 10] {
        let b = viewport(zoom);
        println!(
            "viewport z{zoom} {},{},{},{}",
            b.min_lon, b.min_lat, b.max_lon, b.max_lat
        );
    }
}

/// Flows (issue 27) on the same snapshot, beside the clusters above: the query alone (no
/// kept answer), at the HTTP benchmark's viewports, plain and filtered, and a never-seen
/// filter each time.
fn flows(snap: &Snapshot) {
    use bandmap_index::map::flows::FlowQuery;
    println!(
        "inproc flows segments {} bands_with_2plus_steps {}",
        snap.flows.paths.len(),
        (0..snap.band_points.keys() as u32)
            .filter(|&b| snap.band_points.get(b).len() >= 2)
            .count()
    );
    for zoom in [3u8, 6, 10] {
        for genre in [None, Some("black")] {
            let q = FlowQuery {
                bbox: viewport(zoom),
                zoom,
                filter: Filter::new(genre, None, None, None, None),
                limit: 50,
            };
            let a = snap.flows(&q);
            let (p50, p99) = time_many(500, |_| {
                std::hint::black_box(snap.flows(&q));
            });
            let label = genre.map_or("none".to_string(), |g| format!("genre={g}"));
            println!(
                "inproc flows z{zoom} {label} pairs_total {} listed {} other {} p50_us {} p99_us {}",
                a.total,
                a.flows.len(),
                a.other.count,
                us(p50),
                us(p99)
            );
        }
        let (p50, p99) = time_many(200, |i| {
            let q = FlowQuery {
                bbox: viewport(zoom),
                zoom,
                filter: Filter::new(
                    None,
                    None,
                    None,
                    Some(1970 + i as i32 % 50),
                    Some(2023 - (i / 50) as i32),
                ),
                limit: 50,
            };
            std::hint::black_box(snap.flows(&q));
        });
        println!(
            "inproc flows_never_seen_filter z{zoom} p50_us {} p99_us {}",
            us(p50),
            us(p99)
        );
    }
}
