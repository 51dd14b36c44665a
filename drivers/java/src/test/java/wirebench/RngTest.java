package wirebench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The generator against testdata/rpc/generator.txt (wirebench/workloads.py). */
class RngTest {
  @Test
  void generatorMatchesTheGoldenVector() throws IOException {
    List<String> want = Driver.rpcData("generator.txt");
    assertEquals(1000, want.size());
    Rng rng = new Rng();
    for (int i = 0; i < want.size(); ++i) {
      assertEquals(Long.parseLong(want.get(i)), rng.next() & 0xffffffffL, "output " + i);
    }
    rng.reset();
    assertEquals(Long.parseLong(want.get(0)), rng.next() & 0xffffffffL, "after reset");
  }
}
