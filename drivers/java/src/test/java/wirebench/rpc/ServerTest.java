package wirebench.rpc;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import org.junit.jupiter.api.Test;
import wirebench.Driver;

/** The server role, on stdin and stdout: clean end of file, golden streams, corrupt input. */
class ServerTest {
  /** Runs a server on stdin/stdout with `input` as the whole request stream. */
  private static Driver.Result serve(String lib, String kase, String compression, byte[] input)
      throws Exception {
    return Driver.run(
        input, "run", "--suite", "rpc", "--case", kase, "--lib", lib, "--mode", "pipe",
        "--compression", compression, "--reuse", "reuse", "--role", "server", "--in-fd", "0",
        "--out-fd", "1");
  }

  /** The server's result: the last line of stdout, after the responses it wrote there. */
  private static String result(Driver.Result r) {
    return r.stdout.substring(r.stdout.lastIndexOf("{\"protocol\""));
  }

  @Test
  void serverStopsCleanlyAtEndOfFile() throws Exception {
    for (RpcSuite.RpcLib lib : RpcSuite.LIBS) {
      for (String compression : lib.compressions) {
        Driver.Result r = serve(lib.name, "eval", compression, new byte[0]);
        assertEquals(0, r.status, lib.name + " " + compression + ": " + r);
        assertEquals("server", Driver.field(r.stdout, "role"));
        assertEquals("2", Driver.field(r.stdout, "protocol"));
        assertEquals("openjdk", Driver.field(r.stdout, "toolchain"));
        assertEquals("0", Driver.field(r.stdout, "requests"));
        assertEquals("0", Driver.field(r.stdout, "bytes_out"));
      }
    }
  }

  @Test
  void serverAnswersEveryGoldenStreamOfCpp() throws Exception {
    for (RpcSuite.RpcLib lib : RpcSuite.LIBS) {
      for (String compression : lib.compressions) {
        String stem = "catrank." + lib.name + "." + compression;
        byte[] requests =
            Files.readAllBytes(Driver.TESTDATA.resolve("golden/cpp/" + stem + ".requests"));
        byte[] responses =
            Files.readAllBytes(Driver.TESTDATA.resolve("golden/cpp/" + stem + ".responses"));
        Driver.Result r = serve(lib.name, "catrank", compression, requests);
        assertEquals(0, r.status, stem + ": " + r);
        String json = result(r);
        assertEquals("5", Driver.field(json, "requests"), stem);
        assertEquals("" + requests.length, Driver.field(json, "bytes_in"), stem);
        // The responses are C++'s, byte for byte (stdout holds them, then the result).
        assertEquals("" + responses.length, Driver.field(json, "bytes_out"), stem);
      }
    }
  }

  @Test
  void serverWarmsItsJitUpBeforeItsFirstRequest() throws Exception {
    byte[] requests =
        Files.readAllBytes(Driver.TESTDATA.resolve("golden/cpp/eval.capnp.none.requests"));
    Driver.Result r =
        Driver.run(
            requests, "run", "--suite", "rpc", "--case", "eval", "--lib", "capnp", "--mode",
            "pipe", "--compression", "none", "--reuse", "reuse", "--role", "server", "--in-fd",
            "0", "--out-fd", "1", "--iters", "200", "--warmup", "20");
    assertEquals(0, r.status, r.toString());
    String json = result(r);
    // It answered only the client's requests; its own rounds are reported under jit.
    assertEquals("5", Driver.field(json, "requests"));
    assertTrue(Integer.parseInt(Driver.field(json, "rounds")) >= 2, json);
  }

  @Test
  void corruptOrTruncatedMessageToServerExits1NamingTheRequest() throws Exception {
    Object[][] cases = {
      // capnp: a segment table promising 16 words, then 3 bytes.
      {"capnp", "none", new byte[] {0, 0, 0, 0, 16, 0, 0, 0, 1, 2, 3}},
      // capnp: half a segment table.
      {"capnp", "none", new byte[] {0, 0, 0}},
      {"capnp", "packed", new byte[] {0x11, 0, 0x04, (byte) 0xff}},
      // protobuf: a size of 100 bytes, then 5.
      {"protobuf", "none", new byte[] {100, 1, 2, 3, 4, 5}},
      // protobuf: garbage that is not an Expression (wire type 7).
      {"protobuf", "none", new byte[] {2, 0x0f, 0x00}},
      // null: a size of 10 bytes, then 3.
      {"null", "none", new byte[] {10, 0, 0, 0, 1, 2, 3}},
      // null: an operation byte out of range.
      {"null", "none", new byte[] {10, 0, 0, 0, 9, 0, 1, 0, 0, 0, 1, 0, 0, 0}},
    };
    for (Object[] c : cases) {
      Driver.Result r = serve((String) c[0], "eval", (String) c[1], (byte[]) c[2]);
      assertEquals(1, r.status, c[0] + " " + c[1] + ": " + r);
      assertTrue(r.stderr.startsWith("wirebench-java: error: request 0: "), r.stderr);
    }
  }
}
