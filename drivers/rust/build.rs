// Generates the Cap'n Proto and protobuf code from the shared schemas in ../../schemas
// (never copied) and records the compiler version for `info` and results.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let schemas = manifest.join("../../schemas");
    let names = ["carsales", "catrank", "eval"];

    let mut capnp = capnpc::CompilerCommand::new();
    capnp.src_prefix(&schemas);
    for n in names {
        capnp.file(schemas.join(format!("{n}.capnp")));
    }
    capnp
        .run()
        .expect("capnp compile (needs the capnp tool, e.g. Debian's capnproto)");

    let protos: Vec<PathBuf> = names
        .iter()
        .map(|n| schemas.join(format!("{n}.proto")))
        .collect();
    prost_build::Config::new()
        .compile_protos(&protos, &[&schemas])
        .expect("protoc (needs Debian's protobuf-compiler)");

    for n in names {
        println!(
            "cargo:rerun-if-changed={}",
            schemas.join(format!("{n}.capnp")).display()
        );
        println!(
            "cargo:rerun-if-changed={}",
            schemas.join(format!("{n}.proto")).display()
        );
    }

    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let version = Command::new(rustc)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| {
            // "rustc 1.95.0 (hash date)" -> "rustc 1.95.0"
            s.split_whitespace().take(2).collect::<Vec<_>>().join(" ")
        })
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=WB_RUSTC_VERSION={version}");
    // Library versions from Cargo.lock (the resolved crates), for `info` and results.
    let lock = std::fs::read_to_string(manifest.join("Cargo.lock")).unwrap_or_default();
    for (krate, var) in [("capnp", "WB_CAPNP_VERSION"), ("prost", "WB_PROST_VERSION")] {
        println!("cargo:rustc-env={var}={}", locked_version(&lock, krate));
    }
    println!("cargo:rerun-if-changed=Cargo.lock");
    let profile = std::env::var("PROFILE").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=WB_PROFILE={profile}");
    let opt = std::env::var("OPT_LEVEL").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=WB_OPT_LEVEL={opt}");
}

/// The version of `krate` in Cargo.lock's `[[package]]` entries, or "unknown".
fn locked_version(lock: &str, krate: &str) -> String {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{krate}\"") {
            if let Some(v) = lines.next() {
                if let Some(rest) = v.trim().strip_prefix("version = ") {
                    return rest.trim_matches('"').to_string();
                }
            }
        }
    }
    "unknown".into()
}
