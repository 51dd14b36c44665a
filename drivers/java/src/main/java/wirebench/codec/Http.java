package wirebench.codec;

import com.dslplatform.json.CompiledJson;
import com.dslplatform.json.JsonAttribute;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/** A log record's request (docs/workloads.md, codec / log); enums are their numbers. */
@CompiledJson
@JsonPropertyOrder({
  "protocol", "status", "hostStatus", "upStatus", "method", "contentType", "userAgent",
  "referer", "requestUri"
})
public final class Http {
  @JsonAttribute(index = 1)
  public int protocol;
  @JsonAttribute(index = 2)
  public int status;
  @JsonAttribute(index = 3)
  public int hostStatus;
  @JsonAttribute(index = 4)
  public int upStatus;
  @JsonAttribute(index = 5)
  public int method;
  @JsonAttribute(index = 6)
  public String contentType;
  @JsonAttribute(index = 7)
  public String userAgent;
  @JsonAttribute(index = 8)
  public String referer;
  @JsonAttribute(index = 9)
  public String requestUri;
}
