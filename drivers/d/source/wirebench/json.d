/// The little JSON this driver prints: objects on one line, written by hand.
module wirebench.json;

import std.array : Appender;

/// s as a JSON string.
string quote(string s) pure @safe
{
    import std.format : format;

    Appender!string o;
    o.put('"');
    foreach (char ch; s)
    {
        switch (ch)
        {
        case '"':
            o.put(`\"`);
            break;
        case '\\':
            o.put(`\\`);
            break;
        case '\n':
            o.put(`\n`);
            break;
        case '\t':
            o.put(`\t`);
            break;
        default:
            if (ch < 0x20)
                o.put(format!`\u%04x`(ch));
            else
                o.put(ch); // UTF-8 passes through
        }
    }
    o.put('"');
    return o.data;
}

/// A JSON object built key by key: `{"k": v, ...}`.
struct JsonObject
{
    private Appender!string body;

    /// A value already in JSON.
    ref JsonObject raw(string key, string json) return pure @safe
    {
        if (body.data.length)
            body.put(", ");
        body.put(quote(key));
        body.put(": ");
        body.put(json);
        return this;
    }

    ref JsonObject str(string key, string value) return pure @safe
    {
        return raw(key, quote(value));
    }

    ref JsonObject num(string key, ulong value) return pure @safe
    {
        import std.conv : to;

        return raw(key, value.to!string);
    }

    ref JsonObject boolean(string key, bool value) return pure @safe
    {
        return raw(key, value ? "true" : "false");
    }

    string text() const pure @safe
    {
        return "{" ~ body.data ~ "}";
    }
}

/// A JSON array of numbers.
string list(const ulong[] values) pure @safe
{
    import std.conv : to;

    string o = "[";
    foreach (i, v; values)
        o ~= (i ? ", " : "") ~ v.to!string;
    return o ~ "]";
}

/// A JSON array of strings.
string list(const string[] values) pure @safe
{
    string o = "[";
    foreach (i, v; values)
        o ~= (i ? ", " : "") ~ quote(v);
    return o ~ "]";
}

/// An object of string values from (key, value) pairs, in their order.
string pairs(const string[2][] kv) pure @safe
{
    JsonObject j;
    foreach (p; kv)
        j.str(p[0], p[1]);
    return j.text;
}

unittest
{
    import std.json : parseJSON;

    assert(quote(`a"b\c` ~ "\n\x01") == `"a\"b\\c\n\u0001"`);
    JsonObject j;
    j.num("protocol", 2).str("lang", "d").boolean("ok", true).raw("list", list([1UL, 2]))
        .raw("names", list(["x", "y"])).raw("params", pairs([["cache", "warm"]]));
    assert(j.text == `{"protocol": 2, "lang": "d", "ok": true, "list": [1, 2], "names": ["x", "y"], `
            ~ `"params": {"cache": "warm"}}`, j.text);
    auto parsed = parseJSON(j.text);
    assert(parsed["params"]["cache"].str == "warm");
    JsonObject empty;
    assert(empty.text == "{}");
    assert(list(cast(ulong[])[]) == "[]");
}
