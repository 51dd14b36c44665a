//! The `wirebench-rust` binary: the command line of the driver (src/lib.rs).

fn main() {
    wirebench_rust::main();
}
