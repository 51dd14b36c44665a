/**
 * The driver's identity and provenance (docs/protocol.md, `info`): the toolchain from the
 * compiler's predefined version identifiers, the frontend from __VERSION__, and what the
 * Makefile knows (the compiler's version, the build profile and its flags) from
 * `buildinfo.txt`, a string import (-J) that the Makefile writes beside each build.
 */
module wirebench.identity;

enum int protocol = 2;
enum string lang = "d";

version (GNU)
    enum string toolchain = "gdc";
else version (LDC)
    enum string toolchain = "ldc2";
else
    static assert(0, "wirebench-d is built by gdc or ldc2 (dmd is not in Debian)");

/// The driver's name: the same for both build profiles, as the other languages' drivers.
enum string driver = "wirebench-d-" ~ toolchain;

/// The frontend's version, "2.100" from __VERSION__ 2100.
enum string frontend = () {
    import std.conv : to;

    return to!string(__VERSION__ / 1000) ~ "." ~ to!string(__VERSION__ % 1000 / 100)
        ~ to!string(__VERSION__ % 100 / 10) ~ to!string(__VERSION__ % 10);
}();

/// The lines `key=value` of buildinfo.txt.
private enum string buildInfo = import("buildinfo.txt");

/// The value of key in buildinfo.txt ("" if absent).
string buildField(string info, string key) pure @safe
{
    import std.algorithm.searching : startsWith;
    import std.string : lineSplitter, strip;

    foreach (line; info.lineSplitter)
        if (line.startsWith(key ~ "="))
            return line[key.length + 1 .. $].strip;
    return "";
}

enum string compilerVersion = buildField(buildInfo, "compiler"); /// "gdc 12.2.0"
enum string llvmVersion = buildField(buildInfo, "llvm"); /// ldc2 only
enum string profile = buildField(buildInfo, "profile"); /// stock or tuned
enum string flags = buildField(buildInfo, "flags"); /// the compiler's flags

static assert(buildField(buildInfo, "toolchain") == toolchain,
        "buildinfo.txt is for " ~ buildField(buildInfo, "toolchain") ~ ", this compiler is " ~ toolchain);
version (unittest)
    static assert(profile == "unittest", "a unittest build's buildinfo.txt says profile=unittest");
else
    static assert(profile == "stock" || profile == "tuned", "buildinfo.txt: profile must be stock or tuned");
static assert(compilerVersion.length > 0, "buildinfo.txt: no compiler");

/// A result's provenance: (key, version) pairs.
immutable string[2][] versions = () {
    string[2][] v = [["compiler", compilerVersion], ["frontend", frontend]];
    if (llvmVersion.length)
        v ~= ["llvm", llvmVersion];
    return v;
}();

unittest
{
    assert(buildField("a=1\nflags=-O3 -release\n", "flags") == "-O3 -release");
    assert(buildField("a=1\n", "b") == "");
    assert(frontend.length == 5 && frontend[0 .. 2] == "2.");
    assert(driver == "wirebench-d-gdc" || driver == "wirebench-d-ldc2");
}
