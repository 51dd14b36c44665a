// Generates the Cap'n Proto, protobuf, FlatBuffers, Thrift and SBE code from the shared schemas in
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
    // rust-protobuf's code for the codec schemas, by its pure-Rust parser: OUT_DIR/rust_protobuf.
    protobuf_codegen::Codegen::new()
        .pure()
        .include(&schemas)
        .inputs(["log", "logs"].map(|n| schemas.join(format!("{n}.proto"))))
        .cargo_out_dir("rust_protobuf")
        .run_from_script();

    flatbuffers(&schemas);
    thrift(&schemas);
    sbe(&manifest);

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

    let out_dir = PathBuf::from(std::env::var("OUT_DIR").unwrap());
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
    // The locked version of every dependency of the driver (Cargo.lock), for `info` and
    // results: a library's registration names its crates (src/registry.rs, `Lib::crates`).
    let lock = std::fs::read_to_string(manifest.join("Cargo.lock")).unwrap_or_default();
    let package = std::env::var("CARGO_PKG_NAME").unwrap();
    let mut dependencies = locked_dependencies(&lock, &package);
    // SBE's generated code has no runtime crate: its version is its generator's,
    // sbe-all (`SBE_VERSION` of scripts/sbe-generate.sh), under the name "sbe-tool".
    let script =
        std::fs::read_to_string(manifest.join("../../scripts/sbe-generate.sh")).unwrap_or_default();
    let sbe = script
        .lines()
        .find_map(|l| l.strip_prefix("SBE_VERSION="))
        .and_then(|v| v.split_whitespace().next())
        .unwrap_or("unknown");
    dependencies.push(("sbe-tool".into(), sbe.into()));
    let table: String = dependencies
        .iter()
        .map(|(name, version)| format!("    ({name:?}, {version:?}),\n"))
        .collect();
    std::fs::write(
        out_dir.join("locked.rs"),
        format!("pub const VERSIONS: &[(&str, &str)] = &[\n{table}];\n"),
    )
    .unwrap();
    println!("cargo:rerun-if-changed=Cargo.lock");
    // The Cargo profile's name (release, tuned): PROFILE says only "release" for every
    // profile that inherits from it, but OUT_DIR is <target>/<profile>/build/<pkg>/out.
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

/// The Thrift code of log.thrift (both cases), by Debian's `thrift --gen rs` 0.17.0 (the
/// runtime crate is pinned to the same version): OUT_DIR/thrift/log.rs. The file opens with
/// inner attributes (`#![allow(...)]`), which `include!` cannot take inside a module: they
/// are dropped and the including module says them (src/codec/thrift.rs).
fn thrift(schemas: &std::path::Path) {
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("thrift");
    std::fs::create_dir_all(&out).unwrap();
    let status = Command::new("thrift")
        .args(["--gen", "rs", "-out"])
        .arg(&out)
        .arg(schemas.join("log.thrift"))
        .status()
        .expect("thrift (needs Debian's thrift-compiler, thrift 0.17.0)");
    assert!(status.success(), "thrift failed on log.thrift");
    let path = out.join("log.rs");
    let code = std::fs::read_to_string(&path).unwrap();
    let code: String = code
        .lines()
        .filter(|l| !l.starts_with("#!["))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&path, code).unwrap();
    println!(
        "cargo:rerun-if-changed={}",
        schemas.join("log.thrift").display()
    );
}

/// The SBE code of log.sbe.xml, by SBE's own generator (scripts/sbe-generate.sh Rust,
/// sbe-all 1.30.0): it writes a crate, OUT_DIR/sbe/wirebench_codec_sbe/src/{lib.rs, one
/// file per type}, whose lib.rs declares the others as `pub mod x;` and whose modules say
/// `use crate::*;`. One file, OUT_DIR/sbe.rs, holds it as modules of the including module
/// (src/codec/sbe.rs): each `pub mod x;` becomes `pub mod x { <x.rs> }` with `crate::`
/// read as that module (`super::` in a module, `self::` in lib.rs), and lib.rs's inner
/// attributes are said by the including module.
fn sbe(manifest: &std::path::Path) {
    let root = manifest.join("../..");
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap()).join("sbe");
    let _ = std::fs::remove_dir_all(&out);
    let status = Command::new(root.join("scripts/sbe-generate.sh"))
        .arg("Rust")
        .arg(&out)
        .status()
        .expect("scripts/sbe-generate.sh (needs java and, once, mvn)");
    assert!(status.success(), "sbe-generate.sh failed on log.sbe.xml");
    let src = out.join("wirebench_codec_sbe/src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let mut code = String::new();
    for line in lib.lines() {
        if line.starts_with("#![") {
            continue;
        }
        if let Some(m) = line
            .strip_prefix("pub mod ")
            .and_then(|l| l.strip_suffix(';'))
        {
            let module = std::fs::read_to_string(src.join(format!("{m}.rs")))
                .unwrap()
                .replace("use crate::", "use super::")
                // `encoder` alone is ambiguous in include!d code (this module's, or a
                // sibling's through `use super::*`, E0659).
                .replace("pub use encoder::", "pub use self::encoder::")
                .replace("pub use decoder::", "pub use self::decoder::");
            code.push_str(&format!("pub mod {m} {{\n{module}}}\n"));
            continue;
        }
        code.push_str(&line.replace("use crate::", "use self::"));
        code.push('\n');
    }
    std::fs::write(out.join("../sbe.rs"), code).unwrap();
    for f in ["schemas/log.sbe.xml", "scripts/sbe-generate.sh"] {
        println!("cargo:rerun-if-changed={}", root.join(f).display());
    }
}

/// Cargo.lock's `[[package]]` entries as (name, version, dependencies).
fn lock_packages(lock: &str) -> Vec<(String, String, Vec<String>)> {
    let mut packages = Vec::new();
    for entry in lock.split("[[package]]").skip(1) {
        let field = |key: &str| {
            entry
                .lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix(" = "))
                .map_or(String::new(), |v| v.trim_matches('"').to_string())
        };
        let dependencies = match entry.split_once("dependencies = [") {
            Some((_, rest)) => rest[..rest.find(']').unwrap_or(rest.len())]
                .split(',')
                .map(|d| d.trim().trim_matches('"').to_string())
                .filter(|d| !d.is_empty())
                .collect(),
            None => Vec::new(),
        };
        packages.push((field("name"), field("version"), dependencies));
    }
    packages
}

/// The dependencies of `package` in Cargo.lock, each with its locked version. A dependency
/// is written "name", or "name version" where the lock holds several versions of it.
fn locked_dependencies(lock: &str, package: &str) -> Vec<(String, String)> {
    let packages = lock_packages(lock);
    let Some((_, _, dependencies)) = packages.iter().find(|(name, _, _)| name == package) else {
        return Vec::new();
    };
    dependencies
        .iter()
        .map(|d| match d.split_once(' ') {
            // "name version" or "name version (source)"
            Some((name, rest)) => (name.to_string(), rest.split(' ').next().unwrap().into()),
            None => {
                let version = packages
                    .iter()
                    .find(|(name, _, _)| name == d)
                    .map_or("unknown".into(), |(_, v, _)| v.clone());
                (d.clone(), version)
            }
        })
        .collect()
}
