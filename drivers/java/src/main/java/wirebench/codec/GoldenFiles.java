package wirebench.codec;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import wirebench.Failure;
import wirebench.Json;
import wirebench.Suite;

/**
 * The codec suite's golden files (docs/protocol.md, `golden write` and `golden check`):
 * DIR/<case>.<format>, the case's encoding by this driver's first library of the format.
 * `check` decodes every such file whose format it knows with every library of that format,
 * compares the records field by field with its own, and says whether the bytes are its own.
 */
final class GoldenFiles implements Suite.Golden {
  /** The formats this driver writes, in registry order, each with its first library. */
  private static List<CodecSuite.CodecLib> writers() {
    List<CodecSuite.CodecLib> first = new ArrayList<>();
    List<String> seen = new ArrayList<>();
    for (CodecSuite.CodecLib lib : CodecSuite.LIBS) {
      if (!seen.contains(lib.format)) {
        seen.add(lib.format);
        first.add(lib);
      }
    }
    return first;
  }

  /** The case's encoding by `lib` (buffers reused: the bytes are the same either way). */
  static byte[] encode(CodecSuite.CodecLib lib, String kase) throws Failure {
    return new CodecSuite.Reference<>(lib.name, lib.factory.make(kase, true), kase).encoding;
  }

  @Override
  public void write(String dir, Consumer<Suite.GoldenFile> report) throws Failure {
    File d = new File(dir);
    if (!d.isDirectory() && !d.mkdirs()) {
      throw new Failure(dir + ": cannot create directory");
    }
    for (String kase : Records.GOLDEN) {
      for (CodecSuite.CodecLib lib : writers()) {
        String name = kase + "." + lib.format;
        byte[] bytes = encode(lib, kase);
        try {
          Files.write(new File(d, name).toPath(), bytes);
        } catch (IOException e) {
          throw Failure.of(new File(d, name).getPath(), e);
        }
        report.accept(
            new Suite.GoldenFile(name, Records.records(kase).size(), bytes.length, false));
      }
    }
  }

  /**
   * Checks every DIR/<case>.<format> file (name order) of a known format with each of its
   * libraries; a format this driver lacks (another language's) is reported skipped.
   */
  @Override
  public void check(String dir, Consumer<Suite.GoldenFile> report) throws Failure {
    String[] all = new File(dir).list();
    if (all == null) {
      throw new Failure(dir + ": cannot read directory");
    }
    Arrays.sort(all);
    for (String name : all) {
      String[] parts = name.split("\\.", -1);
      if (parts.length != 2 || !Records.GOLDEN.contains(parts[0])) {
        continue; // not a codec file (rpc's have more dots)
      }
      String kase = parts[0];
      List<CodecSuite.CodecLib> libs = new ArrayList<>();
      for (CodecSuite.CodecLib lib : CodecSuite.LIBS) {
        if (lib.format.equals(parts[1])) {
          libs.add(lib);
        }
      }
      if (libs.isEmpty()) {
        report.accept(new Suite.GoldenFile(name, 0, 0, true));
        continue;
      }
      String path = new File(dir, name).getPath();
      byte[] bytes;
      try {
        bytes = Files.readAllBytes(new File(dir, name).toPath());
      } catch (IOException e) {
        throw Failure.of(path, e);
      }
      List<Log> records = Records.records(kase);
      List<String> names = new ArrayList<>();
      for (CodecSuite.CodecLib lib : libs) {
        Codec<?> codec = lib.factory.make(kase, true);
        try {
          Loops.deserialize(codec, lib.name, bytes, 1);
        } catch (Failure e) {
          throw new Failure(path + ": " + e.getMessage());
        }
        String diff = Records.diff(records, codec.deserialized());
        if (diff != null) {
          throw new Failure(path + ": " + lib.name + ": " + diff);
        }
        names.add(lib.name);
      }
      boolean same = Arrays.equals(bytes, encode(libs.get(0), kase));
      report.accept(
          new Suite.GoldenFile(
              name,
              records.size(),
              bytes.length,
              false,
              new Json()
                  .strings("libs", names)
                  .num("records", records.size())
                  .bool("same_bytes", same)
                  .bool("ok", true)));
    }
  }
}
