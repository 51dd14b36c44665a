// Generates the Cap'n Proto, protobuf and FlatBuffers code from the shared schemas in
// ../../schemas (never copied) and records the compiler and library versions for `info`
// and results.
use std::path::PathBuf;
use std::process::Command;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap());
    let schemas = manifest.join("../../schemas");
    let names = ["carsales", "catrank", "eval", "log", "logs"];

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

    flatbuffers(&schemas);

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
    for krate in [
        "capnp",
        "prost",
        "serde_json",
        "simd-json",
        "sonic-rs",
        "flatbuffers",
        "rmp-serde",
        "bincode",
        "bitcode",
        "postcard",
        "rkyv",
        "hdrhistogram",
        "memmap2",
    ] {
        let var = format!("WB_{}_VERSION", krate.replace('-', "_").to_uppercase());
        println!("cargo:rustc-env={var}={}", locked_version(&lock, krate));
    }
    println!("cargo:rerun-if-changed=Cargo.lock");
    // The Cargo profile's name (release, tuned): PROFILE says only "release" for every
    // profile that inherits from it, but OUT_DIR is <target>/<profile>/build/<pkg>/out.
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let profile = out_dir
        .ancestors()
        .nth(3)
        .and_then(|p| p.file_name())
        .map_or("unknown".into(), |p| p.to_string_lossy().into_owned());
    println!("cargo:rustc-env=WB_PROFILE={profile}");
    let opt = std::env::var("OPT_LEVEL").unwrap_or_else(|_| "unknown".into());
    println!("cargo:rustc-env=WB_OPT_LEVEL={opt}");
    // Every executable of the package (the driver, its tests) is linked by lld: the
    // driver's layout variants (wirebench/drivers.py) are this link with lld's
    // --shuffle-sections, so variant 0 must be lld's too. rustc 1.90+ already links
    // x86_64 Linux with its own rust-lld (which this then names); an older one takes the
    // system's ld.lld. Said here, not in .cargo/config.toml, which cargo reads from its
    // working directory only, and the harness and the Makefile run cargo from the
    // repository root (--manifest-path).
    println!("cargo:rustc-link-arg=-fuse-ld=lld");
}

/// logs.fbs and the log.fbs it includes, as one file (flatc --gen-all): OUT_DIR/
/// logs_generated.rs. flatc 2.0.8 declares `extern crate flatbuffers;` in every namespace
/// module, which clashes with the namespace `wirebench.flatbuffers.codec`'s module of the
/// same name (E0260); the declarations are dropped and the crate is named by its absolute
/// path instead, which changes nothing else in the generated code.
fn flatbuffers(schemas: &std::path::Path) {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    let status = Command::new("flatc")
        .args(["--rust", "--gen-all", "-I"])
        .arg(schemas)
        .arg("-o")
        .arg(&out)
        .arg(schemas.join("logs.fbs"))
        .status()
        .expect("flatc (needs Debian's flatbuffers-compiler, flatc 2.0.8)");
    assert!(status.success(), "flatc failed on logs.fbs");
    let path = out.join("logs_generated.rs");
    let code = std::fs::read_to_string(&path).unwrap();
    let code = code
        .replace("extern crate flatbuffers;", "")
        .replace("use self::flatbuffers::", "use ::flatbuffers::");
    std::fs::write(&path, code).unwrap();
    for f in ["log.fbs", "logs.fbs"] {
        println!("cargo:rerun-if-changed={}", schemas.join(f).display());
    }
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
