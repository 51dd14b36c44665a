package wirebench.codec;

import com.dslplatform.json.CompiledJson;
import com.dslplatform.json.JsonAttribute;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** A log record's origin server (docs/workloads.md, codec / log). */
@CompiledJson
@JsonPropertyOrder({"ip", "port", "hostname", "protocol"})
public final class Origin {
  @JsonAttribute(index = 1)
  public String ip;
  @JsonAttribute(index = 2)
  public int port;
  @JsonAttribute(index = 3)
  public String hostname;
  @JsonAttribute(index = 4)
  public int protocol;
}
