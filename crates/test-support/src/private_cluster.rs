//! A private PostgreSQL cluster for fault tests: `initdb` in a temporary directory, its own
//! port on 127.0.0.1, PostGIS available (the server's extension directory is shared with the
//! system's packages). A test may stop it, kill it and start it again without touching any
//! other database; it is stopped and deleted when the value drops.
//!
//! PostgreSQL refuses to run as root, so when the test runs as root every server command is
//! run as the `postgres` user (`runuser -u postgres --`) and the directory belongs to it.
//! Local (Unix-socket) connections are `trust`; TCP connections need the superuser's
//! password (`scram-sha-256`), so a URL with a password is the real thing.
//!
//! The binaries are taken from `PG_BINDIR`, else from the highest
//! `/usr/lib/postgresql/VERSION/bin` (Debian) whose PostGIS is installed, else from
//! `pg_config --bindir`.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Superuser of the private cluster.
pub const SUPERUSER: &str = "postgres";

/// A running (or stopped) private cluster.
pub struct PrivateCluster {
    dir: PathBuf,
    bindir: PathBuf,
    port: u16,
    password: String,
    as_postgres: bool,
}

fn output_text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// The directory of `initdb`/`pg_ctl`.
fn find_bindir() -> PathBuf {
    if let Ok(dir) = std::env::var("PG_BINDIR") {
        return PathBuf::from(dir);
    }
    let mut candidates: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path().join("bin"))
                .filter(|p| p.join("initdb").exists())
                // Only a version PostGIS is installed for.
                .filter(|p| {
                    p.parent().and_then(Path::file_name).is_some_and(|v| {
                        Path::new("/usr/share/postgresql")
                            .join(v)
                            .join("extension/postgis.control")
                            .exists()
                    })
                })
                .collect()
        })
        .unwrap_or_default();
    // The highest such version.
    candidates.sort_by_key(|p| {
        p.parent()
            .and_then(Path::file_name)
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    if let Some(dir) = candidates.pop() {
        return dir;
    }
    let out = Command::new("pg_config")
        .arg("--bindir")
        .output()
        .expect("no PostgreSQL server binaries: install postgresql (scripts/test.sh does)");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl PrivateCluster {
    /// `initdb` and start a new cluster on a free port.
    ///
    /// # Panics
    /// If PostgreSQL's server binaries are missing or the cluster does not start (the
    /// test environment is broken: fail loudly).
    pub fn start() -> Self {
        let as_postgres = is_root();
        let bindir = find_bindir();
        let dir = {
            let mut c = if as_postgres {
                let mut c = Command::new("runuser");
                c.args(["-u", "postgres", "--", "mktemp", "-d"]);
                c
            } else {
                let mut c = Command::new("mktemp");
                c.arg("-d");
                c
            };
            let out = c.arg("/tmp/bandmap-pg-XXXXXX").output().expect("mktemp");
            assert!(out.status.success(), "mktemp: {}", output_text(&out));
            PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
        };
        let password = format!("private-pg-{}-{}", std::process::id(), free_port());
        let cluster = Self {
            dir,
            bindir,
            port: free_port(),
            password,
            as_postgres,
        };
        let pwfile = cluster.dir.join("pwfile");
        std::fs::write(&pwfile, format!("{}\n", cluster.password)).expect("write pwfile");
        if as_postgres {
            let _ = Command::new("chown")
                .args(["postgres:postgres"])
                .arg(&pwfile)
                .status();
        }
        let data = cluster.data_dir();
        let out = cluster
            .server_command("initdb")
            .arg("-D")
            .arg(&data)
            .args([
                "-U",
                SUPERUSER,
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
            ])
            .arg(format!("--pwfile={}", pwfile.display()))
            .args(["-E", "UTF8", "--locale=C", "--no-sync"])
            .output()
            .expect("run initdb");
        assert!(out.status.success(), "initdb: {}", output_text(&out));
        cluster.start_again();
        cluster
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// A command of the server's bindir, as the `postgres` user when we are root.
    fn server_command(&self, program: &str) -> Command {
        let path = self.bindir.join(program);
        if self.as_postgres {
            let mut c = Command::new("runuser");
            c.args(["-u", "postgres", "--"]).arg(path);
            c
        } else {
            Command::new(path)
        }
    }

    fn pg_ctl(&self, args: &[&str]) -> Output {
        self.server_command("pg_ctl")
            .arg("-D")
            .arg(self.data_dir())
            .args(args)
            .output()
            .expect("run pg_ctl")
    }

    /// Starts the (stopped) cluster again on the same port; waits until it accepts
    /// connections.
    ///
    /// # Panics
    /// If the server does not start.
    pub fn start_again(&self) {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
            self.port,
            self.dir.display()
        );
        let log = self.dir.join("server.log");
        let out = self.pg_ctl(&[
            "start",
            "-w",
            "-t",
            "120",
            "-o",
            &options,
            "-l",
            &log.to_string_lossy(),
        ]);
        assert!(
            out.status.success(),
            "pg_ctl start: {}\n{}",
            output_text(&out),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }

    /// Stops the server (`fast`: every connection is cut, nothing is lost) and waits.
    ///
    /// # Panics
    /// If pg_ctl fails.
    pub fn stop(&self) {
        let out = self.pg_ctl(&["stop", "-w", "-m", "fast"]);
        assert!(out.status.success(), "pg_ctl stop: {}", output_text(&out));
    }

    /// Port of the server on 127.0.0.1.
    #[must_use]
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The superuser's password (TCP connections need it).
    #[must_use]
    pub fn password(&self) -> &str {
        &self.password
    }

    /// Superuser URL of database `db` over TCP.
    #[must_use]
    pub fn url(&self, db: &str) -> String {
        format!(
            "postgres://{SUPERUSER}:{}@127.0.0.1:{}/{db}",
            self.password, self.port
        )
    }

    /// URL of database `db` for `user` with `password`.
    #[must_use]
    pub fn url_as(&self, user: &str, password: &str, db: &str) -> String {
        format!("postgres://{user}:{password}@127.0.0.1:{}/{db}", self.port)
    }

    /// Runs SQL through `psql` over the Unix socket as the superuser on database `db`;
    /// returns the unaligned, tuples-only output.
    ///
    /// # Panics
    /// If psql fails (`ON_ERROR_STOP`).
    pub fn psql(&self, db: &str, sql: &str) -> String {
        let out = self
            .server_command("psql")
            .args(["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"])
            .arg("-h")
            .arg(&self.dir)
            .args([
                "-p",
                &self.port.to_string(),
                "-U",
                SUPERUSER,
                "-d",
                db,
                "-c",
                sql,
            ])
            .output()
            .expect("run psql");
        assert!(out.status.success(), "psql {sql}: {}", output_text(&out));
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    }

    /// Creates database `db` with PostGIS and pg_trgm already in it, so a role that is not
    /// a superuser can own it and run the migrations.
    pub fn create_database(&self, db: &str, owner: &str) {
        self.psql(
            "postgres",
            &format!("CREATE DATABASE \"{db}\" OWNER \"{owner}\""),
        );
        self.psql(
            db,
            "CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS pg_trgm;",
        );
    }

    /// The server's log so far (for failure messages).
    #[must_use]
    pub fn server_log(&self) -> String {
        std::fs::read_to_string(self.dir.join("server.log")).unwrap_or_default()
    }
}

impl Drop for PrivateCluster {
    fn drop(&mut self) {
        let _ = self.pg_ctl(&["stop", "-w", "-m", "immediate"]);
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
