/**
 * The test of the D driver's executables, as the harness sees them: run by `make test`
 * with the paths of the executables (build/wirebench-d-gdc, ...-ldc2, and the tuned pair).
 *
 * It makes the suite's data file itself (ids 0 .. 2,999,999, each the tag byte 0x08 then
 * the id as a varint: 12,886,336 bytes) and files cut or corrupted from it, then checks
 * for each executable: the shape of `info` and `list`; every listed cell (every strategy
 * with every case, warm and cold) on the data file, with the result's evidence; exit 1 and
 * its message for a truncated file, a corrupted tag, an overlong varint, a wrong value and
 * an input that does not open; exit 2 and its message for usage errors.
 *
 * Prints one line per check and closes with "N passed, N failed"; exit status 1 if any
 * check failed.
 */
module clitest;

import std.algorithm : canFind, endsWith, startsWith;
import std.conv : text, to;
import std.file : exists, mkdirRecurse, read, readText, remove, rmdirRecurse, tempDir, write;
import std.format : format;
import std.json : JSONException, JSONType, JSONValue, parseJSON;
import std.path : baseName, buildPath;
import std.process : spawnProcess, thisProcessID, wait;
import std.stdio : File, stdout, writefln, writeln;
import std.string : splitLines, strip;

enum ulong fileSize = 12_886_336;
/// The value of a pass of each case.
ulong expected(string kase)
{
    switch (kase)
    {
    case "count":
        return 12_886_336;
    case "sum":
        return 1_457_733_664;
    default:
        return 4_499_998_500_000;
    }
}
immutable string[] cases = ["count", "sum", "varint"];
immutable string[] libs = ["null", "file_rawread", "by_chunk", "fread", "dlsym_fread", "mmfile", "range",
    "fread_outparam", "fread_eof_minus1"];

string dir; // the test's files
int passed, failed;

void check(bool ok, lazy string name, lazy string detail = "")
{
    if (ok)
    {
        ++passed;
        writeln("ok - ", name);
    }
    else
    {
        ++failed;
        writeln("FAIL - ", name, detail.length ? ": " ~ detail : "");
    }
    stdout.flush();
}

/// The varint encoding of v, low groups first.
ubyte[] varintOf(ulong v)
{
    ubyte[] o;
    do
    {
        ubyte b = v & 0x7f;
        v >>= 7;
        if (v)
            b |= 0x80;
        o ~= b;
    }
    while (v);
    return o;
}

/// The suite's data, and the byte offset of id `tagOf`'s tag.
ubyte[] makeData(ulong tagOf, out ulong tagOffset)
{
    auto o = new ubyte[](0);
    o.reserve(fileSize);
    foreach (i; 0 .. 3_000_000UL)
    {
        if (i == tagOf)
            tagOffset = o.length;
        o ~= 0x08;
        o ~= varintOf(i);
    }
    return o;
}

struct Ran
{
    int status;
    string stdout, stderr;
}

Ran runExe(string exe, string[] args)
{
    const out_ = buildPath(dir, "stdout"), err = buildPath(dir, "stderr");
    auto o = File(out_, "w"), e = File(err, "w");
    auto pid = spawnProcess([exe] ~ args, File("/dev/null"), o, e);
    const status = wait(pid);
    o.close();
    e.close();
    return Ran(status, readText(out_), readText(err));
}

string[] cellArgs(string kase, string lib, string cache, string input, ulong iters, ulong samples, ulong warmup)
{
    return ["run", "--suite", "readbytes", "--case", kase, "--lib", lib, "--cache", cache, "--iters",
        iters.to!string, "--samples", samples.to!string, "--warmup", warmup.to!string, "--input", input];
}

JSONValue parseOne(string stdout_, out string problem)
{
    auto lines = stdout_.splitLines;
    if (lines.length != 1)
    {
        problem = format!"expected one line on stdout, got %d"(lines.length);
        return JSONValue.init;
    }
    try
        return parseJSON(lines[0]);
    catch (JSONException e)
    {
        problem = "not JSON: " ~ lines[0];
        return JSONValue.init;
    }
}

bool isUint(const JSONValue v)
{
    return v.type == JSONType.integer && v.integer >= 0 || v.type == JSONType.uinteger;
}

ulong asUint(const JSONValue v)
{
    return v.type == JSONType.uinteger ? v.uinteger : cast(ulong) v.integer;
}

void testInfo(string exe, string toolchain, string profile)
{
    const name = baseName(exe);
    auto r = runExe(exe, ["info"]);
    string problem;
    auto j = parseOne(r.stdout, problem);
    check(r.status == 0 && problem is null && r.stderr == "", name ~ " info: exit 0, one JSON line",
            text(r.status, " ", problem, r.stderr));
    if (problem !is null)
        return;
    bool shape = j.type == JSONType.object && "protocol" in j && j["protocol"].integer == 2 && j["lang"].str == "d"
        && j["toolchain"].str == toolchain && j["driver"].str == "wirebench-d-" ~ toolchain
        && j["suites"].array.length == 1 && j["suites"][0].str == "readbytes"
        && j["versions"]["compiler"].str.startsWith(toolchain ~ " ")
        && j["versions"]["frontend"].str.startsWith("2.") && j["build"]["profile"].str == profile
        && j["build"]["flags"].str.length > 0;
    check(shape, name ~ " info: protocol 2, lang d, toolchain " ~ toolchain ~ ", profile " ~ profile, j.toString);
}

void testList(string exe)
{
    const name = baseName(exe);
    auto r = runExe(exe, ["list"]);
    string[] want;
    foreach (kase; cases)
        foreach (lib; libs)
            foreach (cache; lib == "null" ? ["warm"] : ["warm", "cold"])
                want ~= parseJSON(format!`{"suite": "readbytes", "case": "%s", "lib": "%s", "params": {"cache": "%s"}}`(kase,
                        lib, cache)).toString;
    string[] got;
    try
        foreach (line; r.stdout.splitLines)
            got ~= parseJSON(line).toString; // canonical: no spaces, keys sorted
    catch (JSONException e)
        got = ["not JSON: " ~ e.msg];
    check(r.status == 0 && got == want, name ~ " list: the 51 cells in order (case, lib, cache)",
            text(r.status, " ", got.length, " lines: ", got.length ? got[0] : "", r.stderr));
}

void testCell(string exe, string toolchain, string kase, string lib, string cache, string input)
{
    const iters = 1UL, samples = cache == "warm" ? 2UL : 1UL, warmup = 1UL;
    const name = format!"%s run %s %s %s"(baseName(exe), kase, lib, cache);
    auto r = runExe(exe, cellArgs(kase, lib, cache, input, iters, samples, warmup));
    string problem;
    auto j = parseOne(r.stdout, problem);
    if (r.status != 0 || problem !is null)
    {
        check(false, name, text("exit ", r.status, " ", problem, " ", r.stderr.strip));
        return;
    }
    string bad;
    void want(bool ok, string what)
    {
        if (!ok && bad is null)
            bad = what;
    }

    try
    {
        want(j["protocol"].integer == 2 && j["lang"].str == "d" && j["toolchain"].str == toolchain
                && j["driver"].str == "wirebench-d-" ~ toolchain, "identity");
        want(j["suite"].str == "readbytes" && j["case"].str == kase && j["lib"].str == lib, "cell");
        want(j["params"].object.length == 1 && j["params"]["cache"].str == cache, "params");
        want(j["role"].str == "local" && j["warmup"].integer == warmup, "role, warmup");
        want(j["verified"].type == JSONType.true_, "verified");
        auto time = j["metrics"]["time"], bytes = j["metrics"]["bytes"];
        want(j["metrics"].object.length == 2, "metrics: time and bytes");
        want(time["unit"].str == "ns" && time["iters"].integer == iters && time["samples"].array.length == samples,
                "metrics.time");
        foreach (s; time["samples"].array)
            want(isUint(s) && asUint(s) > 0, "metrics.time: positive integers");
        want(bytes["unit"].str == "B" && bytes["iters"].integer == iters && bytes["samples"].array.length == samples,
                "metrics.bytes");
        foreach (s; bytes["samples"].array)
            want(isUint(s) && asUint(s) == iters * fileSize, "metrics.bytes: iters x 12,886,336");
        want(j["check"].array.length == samples, "check: one per sample");
        foreach (s; j["check"].array)
            want(isUint(s) && asUint(s) == iters * expected(kase), "check: iters x the case's value");
        want(j["passes_checked"].integer == warmup + iters * samples, "passes_checked");
        want(j["versions"]["compiler"].str.startsWith(toolchain ~ " "), "versions");
        want(r.stderr == "", "nothing on stderr");
    }
    catch (JSONException e)
        bad = "malformed: " ~ e.msg;
    check(bad is null, name, bad ~ ": " ~ r.stdout.strip);
}

void testFails(string exe, string name, string[] args, int status, string[] messages)
{
    auto r = runExe(exe, args);
    bool ok = r.status == status && r.stdout == "";
    foreach (m; messages)
        ok = ok && r.stderr.canFind(m);
    check(ok, format!"%s %s: exit %d"(baseName(exe), name, status), text("exit ", r.status, ", stderr: ",
            r.stderr.splitLines.length ? r.stderr.splitLines[0] : "", r.stdout.length ? ", stdout: " ~ r.stdout : ""));
}

int main(string[] args)
{
    if (args.length < 2)
    {
        writeln("usage: clitest EXECUTABLE...");
        return 2;
    }
    dir = buildPath(tempDir, text("wirebench-d-clitest-", thisProcessID));
    mkdirRecurse(dir);
    scope (exit)
        rmdirRecurse(dir);

    // The files.
    ulong tagOffset;
    auto data = makeData(1_000_000, tagOffset);
    check(data.length == fileSize, "the generated data file has 12,886,336 bytes", data.length.to!string);
    ulong sum = data.length;
    foreach (b; data)
        sum += b;
    check(sum == expected("sum"), "the generated data's bytes sum to 1,457,733,664 with their count");
    const shop = buildPath(dir, "shop.pb");
    write(shop, data);
    const truncated = buildPath(dir, "truncated.pb"); // the last id, 2,999,999, is 4 bytes
    write(truncated, data[0 .. $ - 1]);
    const corrupt = buildPath(dir, "corrupt.pb");
    auto bad = data.dup;
    bad[tagOffset] = 0x10;
    write(corrupt, bad);
    const overlong = buildPath(dir, "overlong.pb");
    ubyte[] eleven = [0x08, 0x00, 0x08];
    foreach (_; 0 .. 10)
        eleven ~= 0x80;
    write(overlong, eleven ~ ubyte(0x01));
    const absent = buildPath(dir, "absent.pb");

    foreach (exe; args[1 .. $])
    {
        const name = baseName(exe);
        const toolchain = name.canFind("-gdc") ? "gdc" : "ldc2";
        const profile = name.endsWith("-tuned") ? "tuned" : "stock";
        if (!exists(exe))
        {
            check(false, exe ~ " exists (make everything)");
            continue;
        }
        testInfo(exe, toolchain, profile);
        testList(exe);
        foreach (kase; cases)
            foreach (lib; libs)
                foreach (cache; lib == "null" ? ["warm"] : ["warm", "cold"])
                    testCell(exe, toolchain, kase, lib, cache, shop);

        // Failed runs: exit 1, naming the pass, the offset or value, the file.
        foreach (lib; libs)
        {
            testFails(exe, "varint " ~ lib ~ " on a truncated file", cellArgs("varint", lib, "warm", truncated, 1, 1, 1),
                    1, ["pass 1 of 2 (warm-up pass 1 of 1)", "byte offset 12886335: end of file inside the varint "
                    ~ "that starts at byte offset 12886332", truncated]);
            testFails(exe, "varint " ~ lib ~ " on a corrupted tag", cellArgs("varint", lib, "warm", corrupt, 1, 1, 0),
                    1, [format!"byte offset %d: tag 0x10, expected 0x08"(tagOffset), "pass 1 of 1 (sample 1 of 1"]);
            testFails(exe, "varint " ~ lib ~ " on an overlong varint", cellArgs("varint", lib, "warm", overlong, 1, 1, 0),
                    1, ["byte offset 3: varint longer than 10 bytes"]);
        }
        testFails(exe, "count on a truncated file", cellArgs("count", "fread", "warm", truncated, 3, 2, 2), 1,
                ["case count, lib fread", "pass 1 of 8 (warm-up pass 1 of 2)", "value 12886335, expected 12886336"]);
        testFails(exe, "sum on a truncated file", cellArgs("sum", "mmfile", "cold", truncated, 1, 1, 0), 1,
                [format!"pass 1 of 1 (sample 1 of 1, its pass 1 of 1): value %d, expected 1457733664"(
                        expected("sum") - data[$ - 1] - 1)]);
        testFails(exe, "an input that does not open", cellArgs("count", "fread", "warm", absent, 1, 1, 0), 1,
                ["cannot open input '" ~ absent ~ "': No such file or directory"]);
        testFails(exe, "an input that does not open (null)", cellArgs("count", "null", "warm", absent, 1, 1, 0), 1,
                ["'" ~ absent ~ "'"]);

        // Usage errors: exit 2, naming the flag or value and listing the legal ones.
        auto cell = cellArgs("sum", "fread", "warm", shop, 1, 1, 0);
        string[] with_(string flag, string value)
        {
            auto o = cell.dup;
            foreach (i, a; o)
                if (a == flag)
                {
                    o[i + 1] = value;
                    return o;
                }
            return o ~ [flag, value];
        }

        string[] without(string flag)
        {
            string[] o;
            for (size_t i = 0; i < cell.length; ++i)
                if (cell[i] == flag)
                    ++i;
                else
                    o ~= cell[i];
            return o;
        }

        testFails(exe, "another suite", with_("--suite", "rpc"), 2, ["unknown suite 'rpc' (one of: readbytes)"]);
        testFails(exe, "no suite", without("--suite"), 2, ["missing --suite (one of: readbytes)"]);
        testFails(exe, "an unknown case", with_("--case", "crc"), 2,
                ["unknown value for --case: 'crc' (one of: count, sum, varint)"]);
        testFails(exe, "an unknown lib", with_("--lib", "stream"), 2, ["unknown value for --lib: 'stream' (one of: "
                ~ "null, file_rawread, by_chunk, fread, dlsym_fread, mmfile, range, fread_outparam, "
                ~ "fread_eof_minus1)"]);
        testFails(exe, "an unknown cache", with_("--cache", "hot"), 2,
                ["unknown value for --cache: 'hot' (one of: warm, cold)"]);
        testFails(exe, "cold for null", cellArgs("sum", "null", "cold", shop, 1, 1, 0), 2,
                ["unknown value for --cache: 'cold' for lib null (one of: warm)"]);
        testFails(exe, "an unknown flag", cell ~ ["--block", "1MiB"], 2, ["unknown flag --block (flags: --suite, "
                ~ "--case, --lib, --cache, --iters, --samples, --warmup, --input)"]);
        testFails(exe, "no input", without("--input"), 2, ["missing --input FILE"]);
        testFails(exe, "a fixture of another suite", cell ~ ["--work-dir", dir], 2, ["flag --work-dir is a fixture"]);
        testFails(exe, "bad iters", with_("--iters", "0"), 2, ["bad value for --iters: '0'"]);
        testFails(exe, "an unknown command", ["bench"], 2, ["unknown command 'bench' (one of: info, list, run)"]);
        testFails(exe, "no command", [], 2, ["missing command (one of: info, list, run)"]);
        testFails(exe, "info with an argument", ["info", "--x"], 2, ["unexpected argument '--x'"]);
    }
    writefln("%d passed, %d failed", passed, failed);
    return failed ? 1 : 0;
}
