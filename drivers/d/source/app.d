/**
 * wirebench-d-gdc and wirebench-d-ldc2: the D driver of wirebench (docs/protocol.md), one
 * source for both compilers. Commands: info, list, run (suite readbytes). Results go to
 * stdout as JSON, everything else to stderr; exit status 0 success, 1 a failed run, 2 a
 * bad command line.
 */
module app;

import std.stdio : stderr, stdout;

import readbytes.consumers : caseNames;
import readbytes.strategies : cachesOf, libNames;
import readbytes.suite : Outcome, run, RunConfig;
import wirebench.cli : parseRun, suiteNames, usageText, UsageError;
import wirebench.identity;
import wirebench.json : JsonObject, list, pairs;

private void printLine(string line)
{
    stdout.writeln(line);
    stdout.flush();
}

/// `info`: identity, protocol, suites, versions, build.
string infoLine()
{
    JsonObject build;
    build.str("profile", profile).str("flags", flags);
    JsonObject j;
    j.num("protocol", protocol).str("lang", lang).str("toolchain", toolchain).str("driver", driver)
        .raw("suites", list(suiteNames)).raw("versions", pairs(versions)).raw("build", build.text);
    return j.text;
}

/// `list`: one line per cell: case, lib, then cache.
string[] listLines()
{
    string[] lines;
    foreach (kase; caseNames)
        foreach (lib; libNames)
            foreach (cache; cachesOf(lib))
            {
                JsonObject j;
                j.str("suite", "readbytes").str("case", kase).str("lib", lib)
                    .raw("params", pairs([["cache", cache]]));
                lines ~= j.text;
            }
    return lines;
}

/// A run's result line.
string resultLine(const RunConfig c, const Outcome o)
{
    JsonObject time, bytes, metrics;
    time.str("unit", "ns").num("iters", c.iters).raw("samples", list(o.timeNs));
    bytes.str("unit", "B").num("iters", c.iters).raw("samples", list(o.bytes));
    metrics.raw("time", time.text).raw("bytes", bytes.text);
    JsonObject j;
    j.num("protocol", protocol).str("lang", lang).str("toolchain", toolchain).str("driver", driver)
        .str("suite", "readbytes").str("case", c.kase).str("lib", c.lib)
        .raw("params", pairs([["cache", c.cold ? "cold" : "warm"]])).str("role", "local")
        .num("warmup", c.warmup).boolean("verified", true).raw("metrics", metrics.text)
        .raw("check", list(o.check)).num("passes_checked", o.passesChecked)
        .raw("versions", pairs(versions));
    return j.text;
}

private void command(string[] argv)
{
    import std.format : format;

    if (argv.length == 0)
        throw new UsageError("missing command (one of: info, list, run)");
    switch (argv[0])
    {
    case "info":
    case "list":
        if (argv.length > 1)
            throw new UsageError(format!"unexpected argument '%s'"(argv[1]));
        if (argv[0] == "info")
            printLine(infoLine());
        else
            foreach (line; listLines())
                printLine(line);
        return;
    case "run":
        const c = parseRun(argv[1 .. $]);
        printLine(resultLine(c, run(c)));
        return;
    default:
        throw new UsageError(format!"unknown command '%s' (one of: info, list, run)"(argv[0]));
    }
}

/// The whole driver; returns the exit status.
int driverMain(string[] argv)
{
    try
    {
        command(argv);
        return 0;
    }
    catch (UsageError e)
    {
        stderr.writef("%s: usage error: %s\n%s", driver, e.msg, usageText(driver));
        return 2;
    }
    catch (Exception e)
    {
        stderr.writefln("%s: error: %s", driver, e.msg);
        return 1;
    }
}

int main(string[] args)
{
    return driverMain(args[1 .. $]);
}

unittest
{
    import std.algorithm.searching : canFind;
    import std.json : JSONType, parseJSON;

    auto info = parseJSON(infoLine());
    assert(info["protocol"].integer == 2 && info["lang"].str == "d");
    assert(info["toolchain"].str == toolchain && info["driver"].str == driver);
    assert(info["suites"].array.length == 1 && info["suites"][0].str == "readbytes");
    assert(info["versions"]["compiler"].str.canFind(toolchain == "gdc" ? "gdc " : "ldc2 "));
    assert(info["build"]["profile"].str == profile);

    auto lines = listLines();
    assert(lines.length == 3 * (1 + 8 * 2), "null warm, the eight others warm and cold, per case");
    auto first = parseJSON(lines[0]), second = parseJSON(lines[1]), last = parseJSON(lines[$ - 1]);
    assert(first["case"].str == "count" && first["lib"].str == "null" && first["params"]["cache"].str == "warm");
    assert(second["lib"].str == "file_rawread" && second["params"]["cache"].str == "warm");
    assert(parseJSON(lines[2])["params"]["cache"].str == "cold");
    assert(last["case"].str == "varint" && last["lib"].str == "fread_eof_minus1"
            && last["params"]["cache"].str == "cold");

    RunConfig c = {kase: "sum", lib: "fread", cold: true, iters: 2, samples: 2, warmup: 1, input: "x"};
    Outcome o = {timeNs: [5, 6], bytes: [2 * 12_886_336, 2 * 12_886_336], check: [7, 8], passesChecked: 5};
    auto r = parseJSON(resultLine(c, o));
    assert(r["params"]["cache"].str == "cold" && r["verified"].type == JSONType.true_);
    assert(r["metrics"]["time"]["samples"].array.length == 2 && r["metrics"]["bytes"]["iters"].integer == 2);
    assert(r["check"][1].integer == 8 && r["passes_checked"].integer == 5 && r["warmup"].integer == 1);
}
