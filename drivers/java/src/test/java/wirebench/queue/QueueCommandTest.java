package wirebench.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import wirebench.Driver;

/**
 * `queue append DIR` and `queue tail DIR` through the launcher, as the harness's
 * interoperability and crash tests run them: separate processes, a real death mid-entry, a
 * second appender refused while the first holds the flock.
 */
class QueueCommandTest {
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir Path tmp;

  private static JsonNode ok(Driver.Result r) throws Exception {
    assertEquals(0, r.status, r.toString());
    assertEquals(1, r.lines().size(), r.toString());
    return JSON.readTree(r.lines().get(0));
  }

  private Driver.Result queue(String... args) throws Exception {
    String[] all = new String[args.length + 1];
    all[0] = "queue";
    System.arraycopy(args, 0, all, 1, args.length);
    return Driver.run(all);
  }

  @Test
  void appendThenTail() throws Exception {
    String dir = tmp.resolve("q").toString();
    JsonNode a =
        ok(queue("append", dir, "--entries", "3000", "--longs", "2", "--first", "-5",
            "--cycle-size", "65536", "--ordering", "seqcst"));
    assertEquals(
        JSON.readTree("{\"entries\": 3000, \"longs\": 6000, \"first\": -5, \"sum\": 17967000}"),
        a);
    JsonNode t = ok(queue("tail", dir));
    assertEquals(3000, t.get("entries").asLong());
    assertEquals(6000, t.get("longs").asLong());
    assertEquals(-5, t.get("first").asLong());
    assertEquals(5994, t.get("last").asLong());
    assertEquals(17967000, t.get("sum").asLong());
    assertTrue(t.get("consecutive").asBoolean());
    assertTrue(t.get("monotonic").asBoolean());
    assertEquals(0, t.get("abandoned").asLong());
    assertEquals("end", t.get("stopped").asText());
    assertEquals("00000001.wbq", t.get("file").asText(), "3000 entries of 32 bytes: two files");
    // Appending again recovers the queue and goes on where it ended.
    ok(queue("append", dir, "--entries", "1", "--longs", "2", "--first", "5995",
        "--cycle-size", "65536"));
    t = ok(queue("tail", dir));
    assertEquals(3001, t.get("entries").asLong());
    assertTrue(t.get("consecutive").asBoolean());
  }

  @Test
  void anEmptyQueueDirectory() throws Exception {
    JsonNode t = ok(queue("tail", tmp.toString()));
    assertEquals(0, t.get("entries").asLong());
    assertTrue(t.get("first").isNull());
    assertTrue(t.get("last").isNull());
    assertEquals("end", t.get("stopped").asText());
    assertTrue(t.get("file").isNull());
  }

  @Test
  void aDeathMidEntryIsRecoveredAsAbandoned() throws Exception {
    String dir = tmp.resolve("q").toString();
    Driver.Result died =
        queue("append", dir, "--entries", "10", "--longs", "4", "--die-mid-entry");
    assertEquals(3, died.status, died.toString());
    JsonNode t = ok(queue("tail", dir));
    assertEquals(10, t.get("entries").asLong());
    assertEquals("incomplete", t.get("stopped").asText());
    assertEquals("00000000.wbq", t.get("file").asText());
    assertEquals(64 + 10 * 48, t.get("offset").asLong());

    ok(queue("append", dir, "--entries", "5", "--longs", "4", "--first", "40"));
    t = ok(queue("tail", dir));
    assertEquals(15, t.get("entries").asLong());
    assertEquals(1, t.get("abandoned").asLong());
    assertEquals(59, t.get("last").asLong());
    assertTrue(t.get("consecutive").asBoolean(), "the abandoned entry's values are never read");
    assertEquals("end", t.get("stopped").asText());
  }

  @Test
  void aSecondAppenderIsRefusedAndAFollowerSeesEveryEntry() throws Exception {
    Path dir = tmp.resolve("q");
    Process first =
        // 400 entries 25 ms apart: the first appender holds the lock for 10 s, long enough for a
        // second JVM to start on a loaded machine (at 5 ms apart, CI's second JVM came too late).
        Driver.process("queue", "append", dir.toString(), "--entries", "400", "--pause-us", "25000")
            .redirectErrorStream(true)
            .start();
    Process follower =
        Driver.process("queue", "tail", dir.toString(), "--follow", "--expect", "400",
                "--timeout", "60")
            .start();
    try {
      Path lock = dir.resolve("queue.lock");
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!(Files.exists(lock) && Files.size(lock) > 0) && System.nanoTime() < deadline) {
        Thread.sleep(20);
      }
      Driver.Result second = queue("append", dir.toString(), "--entries", "1");
      boolean firstAlive = first.isAlive();
      assertEquals(1, second.status,
          () -> second + (firstAlive ? "" : " (the first appender had already ended)"));
      assertTrue(
          second.stderr.contains(dir.toString())
              && second.stderr.contains("(pid " + first.pid()),
          second.stderr);
      assertEquals(0, first.waitFor(), new String(first.getInputStream().readAllBytes()));
      assertEquals(0, follower.waitFor());
      JsonNode t =
          JSON.readTree(
              new String(follower.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
      assertEquals(400, t.get("entries").asLong());
      assertEquals(399, t.get("last").asLong());
      assertTrue(t.get("consecutive").asBoolean());
      assertTrue(t.get("monotonic").asBoolean());
    } finally {
      first.destroyForcibly();
      follower.destroyForcibly();
    }
  }

  @Test
  void aFollowerGivesUpAfterItsTimeout() throws Exception {
    Driver.Result r =
        queue("tail", tmp.toString(), "--follow", "--expect", "1", "--timeout", "0.2");
    assertEquals(1, r.status, r.toString());
    assertTrue(r.stderr.contains("read 0 of 1 entries"), r.stderr);
  }

  @Test
  void aCorruptFileIsExit1NamingFileAndOffset() throws Exception {
    Path dir = tmp.resolve("q");
    ok(queue("append", dir.toString(), "--entries", "3", "--cycle-size", "65536"));
    try (RandomAccessFile f = new RandomAccessFile(dir.resolve("00000000.wbq").toFile(), "rw")) {
      f.seek(64 + 24 + 4);
      f.write(1); // bit 32 of the second header word
    }
    Driver.Result r = queue("tail", dir.toString());
    assertEquals(1, r.status, r.toString());
    assertTrue(r.stderr.contains(dir.resolve("00000000.wbq") + " offset 88: corrupt"), r.stderr);
  }

  @Test
  void usageErrors() throws Exception {
    String dir = tmp.toString();
    String[][] cases = {
      {"queue append: missing --entries N", "append", dir},
      {"unknown value for --clock: 'tsc' (Java cannot read the TSC; one of: mono)",
        "append", dir, "--entries", "1", "--clock", "tsc"},
      {"unknown value for --ordering: 'none' (one of: release, seqcst)",
        "append", dir, "--entries", "1", "--ordering", "none"},
      {"bad value for --cycle-size: 65537 (a multiple of 4096)",
        "append", dir, "--entries", "1", "--cycle-size", "65537"},
      {"queue tail: --follow and --expect N go together", "tail", dir, "--follow"},
      {"queue tail: missing DIR", "tail"},
      {"queue: unknown subcommand 'head' (append or tail)", "head", dir},
    };
    for (String[] c : cases) {
      String[] args = new String[c.length - 1];
      System.arraycopy(c, 1, args, 0, args.length);
      Driver.Result r = queue(args);
      assertEquals(2, r.status, String.join(" ", args) + ": " + r);
      assertEquals(c[0], r.usageError());
    }
  }
}
