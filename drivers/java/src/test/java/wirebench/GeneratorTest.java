package wirebench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The generator and the cases' answers against testdata/rpc (wirebench/workloads.py). */
class GeneratorTest {
  private static List<String> data(String name) throws IOException {
    List<String> out = new ArrayList<>();
    for (String l : Files.readAllLines(Driver.TESTDATA.resolve("rpc").resolve(name))) {
      if (!l.isBlank() && !l.startsWith("#")) {
        out.add(l.trim());
      }
    }
    return out;
  }

  @Test
  void generatorMatchesTheGoldenVector() throws IOException {
    List<String> want = data("generator.txt");
    assertEquals(1000, want.size());
    Rng rng = new Rng();
    for (int i = 0; i < want.size(); ++i) {
      assertEquals(Long.parseLong(want.get(i)), rng.next() & 0xffffffffL, "output " + i);
    }
    rng.reset();
    assertEquals(Long.parseLong(want.get(0)), rng.next() & 0xffffffffL, "after reset");
  }

  @Test
  void everyLibraryGivesTheFirst20Answers() throws Exception {
    for (String kase : Registry.RPC_CASES) {
      List<String> want = data(kase + ".txt");
      assertEquals(20, want.size(), kase);
      for (Registry.RpcLib lib : Registry.RPC_LIBS) {
        for (boolean reuse : new boolean[] {true, false}) {
          RpcCell cell = lib.make.make(kase, "none", reuse);
          long[] got = cell.writeRequests(new Rng(), 20, OutputStream.nullOutputStream());
          for (int i = 0; i < 20; ++i) {
            String[] parts = want.get(i).split("\\s+");
            assertEquals(i, Integer.parseInt(parts[0]));
            // carsales values are u64 but far below 2^63; the others are signed.
            assertEquals(
                Long.parseLong(parts[1]),
                got[i],
                kase + " " + lib.name + " reuse=" + reuse + " request " + i);
          }
        }
      }
    }
  }

  @Test
  void evalArithmeticWrapsAndSaturatesLikeCpp() {
    assertEquals(Integer.MIN_VALUE, Cases.apply(0, Integer.MAX_VALUE, 1));
    assertEquals(Integer.MAX_VALUE, Cases.apply(3, 5, 0));
    assertEquals(Integer.MAX_VALUE, Cases.apply(4, 5, 0));
    assertEquals(Integer.MAX_VALUE, Cases.apply(3, Integer.MIN_VALUE, -1));
    assertEquals(Integer.MAX_VALUE, Cases.apply(4, Integer.MIN_VALUE, -1));
    assertEquals(-2, Cases.apply(3, -7, 3));
    assertEquals(-1, Cases.apply(4, -7, 3));
    assertEquals(1, Cases.apply(4, 7, -3));
  }

  @Test
  void carValueUsesUnsigned32BitIntermediates() {
    // length * width * height above 2^31: divided as unsigned, like the C++ uint32_t.
    long v =
        Cases.carValue(0, 0, 0, 0xffff, 0xffff, 1, 0, false, false, false, false, false, false, 0);
    assertEquals(Integer.toUnsignedLong(0xffff * 0xffff) / 50, v);
  }

  @Test
  void sortPutsTheHighestScoreFirst() {
    double[] scores = new double[500];
    Rng rng = new Rng();
    for (int i = 0; i < scores.length; ++i) {
      scores[i] = rng.randDouble(1e6);
    }
    int[] order = new int[scores.length];
    Cases.sortByScoreDescending(scores, order, scores.length);
    for (int i = 1; i < order.length; ++i) {
      assertEquals(true, scores[order[i - 1]] >= scores[order[i]], "position " + i);
    }
  }
}
