package wirebench.codec;

import com.dslplatform.json.CompiledJson;
import java.util.ArrayList;
import java.util.List;

/** The `logs` case's message: {"logs": [...]} (docs/workloads.md, codec / logs). */
@CompiledJson
public final class Logs {
  public List<Log> logs = new ArrayList<>();
}
