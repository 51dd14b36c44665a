package wirebench.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import wirebench.Driver;

/**
 * Chronicle Queue as the launcher configures it (issue 23): its disk space monitor off, the
 * threads it starts stated in the result, and a queue that refuses to open with the monitor on.
 */
class ChronicleConfigTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] CELL = {
    "run", "--suite", "queue", "--case", "single", "--lib", "chronicle", "--ordering", "lib",
    "--clock", "mono", "--pretouch", "off", "--iters", "1000", "--samples", "1", "--warmup", "1"
  };

  @TempDir Path tmp;

  private Driver.Result run(String jvmOpts) throws Exception {
    List<String> args = new ArrayList<>(List.of(CELL));
    args.addAll(List.of("--work-dir", tmp.toString(), "--out-dir", tmp.toString()));
    return Driver.runWith(null, jvmOpts, args.toArray(new String[0]));
  }

  @Test
  void theResultStatesChroniclesThreadsAndNoDiskMonitor() throws Exception {
    Driver.Result r = run("-Dwirebench.jit.maxRounds=1");
    assertEquals(0, r.status, r.toString());
    JsonNode threads = JSON.readTree(r.lines().get(0)).get("queue").get("threads");
    List<String> names = new ArrayList<>();
    threads.forEach(t -> names.add(t.asText()));
    assertTrue(names.contains("background~resource~releaser"), names.toString());
    assertFalse(names.contains("disk~space~checker"), names.toString());
  }

  /** A later -D overrides the launcher's: the cell must not run with the monitor on. */
  @Test
  void theQueueRefusesToOpenWithTheDiskMonitorOn() throws Exception {
    Driver.Result r = run("-Dchronicle.disk.monitor.disable=false");
    assertEquals(1, r.status, r.toString());
    assertTrue(r.stderr.contains("Chronicle's disk space monitor is on"), r.stderr);
  }
}
