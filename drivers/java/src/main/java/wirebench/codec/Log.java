package wirebench.codec;

import com.dslplatform.json.CompiledJson;
import com.dslplatform.json.JsonAttribute;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;

/**
 * The plain record of the codec suite (docs/workloads.md, codec / log): what the workload's
 * values are held in, and the native form of the libraries that serialize plain classes
 * (jackson, dsl-json, msgpack-java, kryo, null). Public fields in the canonical JSON's order
 * (jackson's @JsonPropertyOrder, dsl-json's attribute indexes). u32 and u64 are longs: Java has no
 * unsigned types, and the values fit (zoneId below 2^31, bytesDlv below 2^48).
 */
@CompiledJson
@JsonPropertyOrder({
  "timestamp", "zoneId", "zonePlan", "http", "origin", "country", "cacheStatus", "serverIp",
  "serverName", "remoteIp", "bytesDlv", "rayId"
})
public final class Log {
  @JsonAttribute(index = 1)
  public long timestamp;
  @JsonAttribute(index = 2)
  public long zoneId;
  @JsonAttribute(index = 3)
  public int zonePlan;
  @JsonAttribute(index = 4)
  public Http http;
  @JsonAttribute(index = 5)
  public Origin origin;
  @JsonAttribute(index = 6)
  public int country;
  @JsonAttribute(index = 7)
  public int cacheStatus;
  @JsonAttribute(index = 8)
  public String serverIp;
  @JsonAttribute(index = 9)
  public String serverName;
  @JsonAttribute(index = 10)
  public String remoteIp;
  @JsonAttribute(index = 11)
  public long bytesDlv;
  @JsonAttribute(index = 12)
  public String rayId;
}
