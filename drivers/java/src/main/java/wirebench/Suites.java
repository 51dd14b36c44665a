package wirebench;

import java.util.ArrayList;
import java.util.List;
import wirebench.codec.CodecSuite;
import wirebench.limit.LimitSuite;
import wirebench.queue.QueueSuite;
import wirebench.readbytes.ReadbytesSuite;
import wirebench.rpc.RpcSuite;

/**
 * The registry of this driver's suites, in the order of `list` and `info`. Adding a suite is
 * one package (its Suite) and one line here.
 */
public final class Suites {
  private Suites() {}

  public static final List<Suite<?>> ALL =
      List.of(
          RpcSuite.SUITE, LimitSuite.SUITE, CodecSuite.SUITE, QueueSuite.SUITE,
          ReadbytesSuite.SUITE);

  /** The suite called `name`, or null. */
  public static Suite<?> find(String name) {
    for (Suite<?> s : ALL) {
      if (s.name.equals(name)) {
        return s;
      }
    }
    return null;
  }

  public static List<String> names() {
    List<String> names = new ArrayList<>();
    ALL.forEach(s -> names.add(s.name));
    return names;
  }
}
