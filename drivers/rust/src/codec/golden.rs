//! Golden encodings of the codec suite (docs/protocol.md, `golden write` and `golden
//! check`): `write` puts DIR/<case>.<format>, the case's message encoded by the first
//! library of each format in its first cell; `check` decodes every DIR/<case>.<format>
//! whose format it knows with every library of that format (first cells), compares the
//! records with the workload's one by one, and says whether the bytes equal its own.

use std::path::Path;

use super::records::{self, Case};
use super::{Lib, Make, Variant, SUITE};
use crate::error::{Failure, Res};
use crate::registry::{GoldenFile, Report};

/// The first library of each format, in registry order.
fn writers() -> Vec<&'static Lib<Make>> {
    let mut first: Vec<&'static Lib<Make>> = Vec::new();
    for lib in SUITE.libs {
        if !first.iter().any(|l| l.make.format == lib.make.format) {
            first.push(lib);
        }
    }
    first
}

fn encode(lib: &Lib<Make>, case: &Case) -> Res<Vec<u8>> {
    (lib.make.cell)()
        .encode(case, Variant::first(lib))
        .map_err(|e| Failure(format!("{} {}: {}", case.name, lib.name, e.0)))
}

pub fn write(dir: &str, report: Report<'_>) -> Res<()> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure(format!("{dir}: cannot create directory: {e}")))?;
    for &name in records::GOLDEN {
        let case = Case::new(name);
        for lib in writers() {
            let file = format!("{name}.{}", lib.make.format);
            let bytes = encode(lib, &case)?;
            let path = Path::new(dir).join(&file);
            std::fs::write(&path, &bytes)
                .map_err(|e| Failure(format!("{}: {e}", path.display())))?;
            report(&GoldenFile {
                name: file,
                messages: case.records.len() as u64,
                bytes: bytes.len() as u64,
                skipped: false,
                libs: Vec::new(),
                same_bytes: None,
            });
        }
    }
    Ok(())
}

/// Checks every DIR/<case>.<format> of a codec case, in name order; a format this driver
/// does not know is reported skipped, files of other suites are left to them.
pub fn check(dir: &str, report: Report<'_>) -> Res<()> {
    let cannot_read = |e: std::io::Error| Failure(format!("{dir}: cannot read directory: {e}"));
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(cannot_read)? {
        let name = entry.map_err(cannot_read)?.file_name();
        names.push(name.to_string_lossy().into_owned());
    }
    names.sort();
    for file in names {
        let Some((name, format)) = file.split_once('.') else {
            continue;
        };
        let Some(&name) = records::GOLDEN.iter().find(|&&c| c == name) else {
            continue;
        };
        let libs: Vec<&'static Lib<Make>> = SUITE
            .libs
            .iter()
            .filter(|l| l.make.format == format)
            .collect();
        if libs.is_empty() {
            report(&GoldenFile {
                name: file,
                messages: 0,
                bytes: 0,
                skipped: true,
                libs: Vec::new(),
                same_bytes: None,
            });
            continue;
        }
        let path = Path::new(dir).join(&file);
        let bytes = std::fs::read(&path).map_err(|e| Failure(format!("{file}: {e}")))?;
        let case = Case::new(name);
        for lib in &libs {
            let records = (lib.make.cell)()
                .decode(&case, Variant::first(lib), &bytes)
                .map_err(|e| Failure(format!("{file}: {}: {}", lib.name, e.0)))?;
            if records.len() != case.records.len() {
                return Err(Failure(format!(
                    "{file}: {}: {} records, expected {}",
                    lib.name,
                    records.len(),
                    case.records.len()
                )));
            }
            if let Some(i) = (0..records.len()).find(|&i| records[i] != case.records[i]) {
                return Err(Failure(format!(
                    "{file}: {}: record {i} differs: {:?}, expected {:?}",
                    lib.name, records[i], case.records[i]
                )));
            }
        }
        let own = encode(libs[0], &case)?;
        report(&GoldenFile {
            name: file,
            messages: case.records.len() as u64,
            bytes: bytes.len() as u64,
            skipped: false,
            libs: libs.iter().map(|l| l.name).collect(),
            same_bytes: Some(own == bytes),
        });
    }
    Ok(())
}
