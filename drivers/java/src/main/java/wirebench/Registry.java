package wirebench;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The one place that lists what this driver can run: suites, cases, libraries, parameters.
 * `list` prints the same 93 cells, in the same order, as the C++ and Rust drivers.
 */
final class Registry {
  private Registry() {}

  static final List<String> RPC_CASES = List.of("carsales", "catrank", "eval");
  static final List<String> RPC_MODES = List.of("object", "bytes", "pipe", "pipe-async");
  static final List<String> REUSE_MODES = List.of("reuse", "no-reuse");

  interface Factory {
    /** The cell, or null if the library does not support this case or compression. */
    RpcCell make(String kase, String compression, boolean reuse);
  }

  static final class RpcLib {
    final String name;
    final List<String> compressions;
    final Factory make;
    /** Extra provenance for results of this library: (key, version). */
    final Map<String, String> versions;

    RpcLib(String name, List<String> compressions, Factory make, Map<String, String> versions) {
      this.name = name;
      this.compressions = compressions;
      this.make = make;
      this.versions = versions;
    }
  }

  static final String CAPNP_VERSION = mavenVersion("org.capnproto", "runtime");
  static final String PROTOBUF_VERSION = mavenVersion("com.google.protobuf", "protobuf-java");

  static final List<RpcLib> RPC_LIBS =
      List.of(
          new RpcLib(
              "capnp", List.of("none", "packed"), CapnpRpc::make, Map.of("capnp", CAPNP_VERSION)),
          new RpcLib(
              "protobuf",
              List.of("none"),
              ProtobufRpc::make,
              Map.of("protobuf", PROTOBUF_VERSION)),
          new RpcLib("null", List.of("none"), NullRpc::make, Map.of()));

  static RpcLib findRpcLib(String name) {
    for (RpcLib lib : RPC_LIBS) {
      if (lib.name.equals(name)) {
        return lib;
      }
    }
    return null;
  }

  static final Map<String, Integer> MEMCPY_BLOCKS = new LinkedHashMap<>();

  static {
    MEMCPY_BLOCKS.put("16KiB", 16 << 10);
    MEMCPY_BLOCKS.put("1MiB", 1 << 20);
    MEMCPY_BLOCKS.put("64MiB", 64 << 20);
  }

  /** One line of `list` per cell, in a stable order. */
  static List<String> listCells() {
    List<String> lines = new ArrayList<>();
    for (String kase : RPC_CASES) {
      for (RpcLib lib : RPC_LIBS) {
        for (String mode : RPC_MODES) {
          for (String compression : lib.compressions) {
            if (mode.equals("object") && !compression.equals("none")) {
              continue; // nothing to compress
            }
            for (String reuse : REUSE_MODES) {
              lines.add(
                  "{\"suite\": \"rpc\", \"case\": \"" + kase + "\", \"lib\": \"" + lib.name
                      + "\", \"params\": {\"mode\": \"" + mode + "\", \"compression\": \""
                      + compression + "\", \"reuse\": \"" + reuse + "\"}}");
            }
          }
        }
      }
    }
    for (String block : MEMCPY_BLOCKS.keySet()) {
      lines.add(
          "{\"suite\": \"limit\", \"case\": \"memcpy\", \"lib\": \"memcpy\", "
              + "\"params\": {\"block\": \"" + block + "\"}}");
    }
    return lines;
  }

  /** A library's version, from the pom.properties Maven puts in its jar. */
  private static String mavenVersion(String group, String artifact) {
    String path = "/META-INF/maven/" + group + "/" + artifact + "/pom.properties";
    try (InputStream in = Registry.class.getResourceAsStream(path)) {
      if (in == null) {
        return "unknown";
      }
      Properties p = new Properties();
      p.load(in);
      return p.getProperty("version", "unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  static boolean isPipeMode(String mode) {
    return Arrays.asList("pipe", "pipe-async").contains(mode);
  }
}
