package io.github.agentlb.agent;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.databind.annotation.JsonSerialize;
import com.fasterxml.jackson.databind.ser.std.StdSerializer;
import java.io.IOException;
import java.math.BigDecimal;

/**
 * Body of a {@code GET /process/{req_id}} answer.
 *
 * @param agentId id of the answering agent
 * @param requestId the {@code req_id} path segment
 * @param userId the {@code user_id} query parameter as given, null if absent
 * @param timestamp when the answer was produced, seconds since the epoch with a fraction,
 *     written as a plain decimal ({@code 1732931225.123456}, not {@code 1.732931225123456E9})
 */
@JsonPropertyOrder({"agent_id", "request_id", "user_id", "timestamp"})
public record ProcessResponse(
        @JsonProperty("agent_id") String agentId,
        @JsonProperty("request_id") String requestId,
        @JsonProperty("user_id") String userId,
        @JsonProperty("timestamp") @JsonSerialize(using = PlainDecimalSerializer.class) double timestamp) {

    /**
     * Writes a double in plain decimal notation; Jackson's default switches to exponent form
     * from 1e7 on, which every epoch-seconds value exceeds.
     */
    public static final class PlainDecimalSerializer extends StdSerializer<Double> {

        private static final long serialVersionUID = 1L;

        /** Used by Jackson. */
        public PlainDecimalSerializer() {
            super(Double.class);
        }

        @Override
        public void serialize(Double value, JsonGenerator gen, SerializerProvider provider) throws IOException {
            gen.writeNumber(BigDecimal.valueOf(value).toPlainString());
        }
    }
}
