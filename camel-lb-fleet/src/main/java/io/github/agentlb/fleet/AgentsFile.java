package io.github.agentlb.fleet;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.github.agentlb.core.fleet.AgentSpec;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The agents file's two formats, told apart by content: JSON when the first character that is
 * not white space is {@code [} or <code>{</code>, text otherwise.
 *
 * <p>Text: one agent per line, {@code name=url} followed by options separated by {@code ;}:
 * {@code weight=N} (decimal digits with an optional fraction, such as {@code 2} or {@code 0.5}, in
 * (0, 1000]; default 1), {@code draining} (or {@code draining=true|false}), {@code zone=z}.
 * Blank lines and lines starting with {@code #} are ignored; white space around each part is, but
 * an option has none inside ({@code weight= 4} is an error), a value is never empty, and an option
 * given twice is an error, as a key twice is in JSON.
 * <pre>
 * # name=url[;weight=N][;draining][;zone=z]
 * A1=http://10.0.0.1:9001
 * A2=http://10.0.0.2:9001;weight=2;zone=eu-west-1a
 * </pre>
 *
 * <p>JSON: an array of agents, or an object whose only field {@code agents} is that array; each
 * agent an object with {@code name} and {@code url} (strings, required), {@code weight} (number),
 * {@code draining} (boolean), {@code zone} (string). Unknown fields and duplicate keys are errors:
 * a misspelt {@code wieght} must not silently give weight 1.
 *
 * <p>Stateless and thread-safe.
 */
public final class AgentsFile {

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final Set<String> FIELDS = Set.of("name", "url", "weight", "draining", "zone");
    /** The text format's options, each with how it is written. */
    private static final Map<String, String> OPTIONS =
            Map.of("weight", "weight=N", "draining", "draining or draining=true|false", "zone", "zone=z");
    private static final Pattern WEIGHT = Pattern.compile("[0-9]+(\\.[0-9]+)?");

    private AgentsFile() {
    }

    /**
     * @param content the whole file
     * @return its agents, in the file's order, names distinct; possibly empty (a file with only
     *         comments), which {@link LastGoodFleet} then refuses
     * @throws IllegalArgumentException saying what is wrong and where (line or agent index)
     */
    public static List<AgentSpec> parse(String content) {
        String text = content.startsWith("\uFEFF") ? content.substring(1) : content;
        String start = text.stripLeading();
        return start.startsWith("[") || start.startsWith("{") ? parseJson(text) : parseText(text);
    }

    private static List<AgentSpec> parseText(String text) {
        List<AgentSpec> agents = new ArrayList<>();
        Map<String, Integer> lineOf = new HashMap<>();
        Map<URI, String> nameAt = new HashMap<>();
        String[] lines = text.split("\r?\n|\r", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int number = i + 1;
            AgentSpec agent = parseLine(line, number);
            Integer first = lineOf.putIfAbsent(agent.name(), number);
            if (first != null) {
                throw new IllegalArgumentException("line " + number + ": duplicate name '" + agent.name()
                        + "' (first on line " + first + ")");
            }
            // Two names for one agent would each take a share: the agent twice its own.
            String same = nameAt.putIfAbsent(agent.address(), agent.name());
            if (same != null) {
                throw new IllegalArgumentException("line " + number + ": url " + agent.address() + " is agent '" + same
                        + "''s (line " + lineOf.get(same) + ") too");
            }
            agents.add(agent);
        }
        return agents;
    }

    private static AgentSpec parseLine(String line, int number) {
        String where = "line " + number + ": ";
        String[] parts = line.split(";", -1);
        int eq = parts[0].indexOf('=');
        if (eq < 0) {
            throw new IllegalArgumentException(where + "expected name=url, was '" + line + "'");
        }
        String name = parts[0].substring(0, eq).strip();
        URI url = uri(where, parts[0].substring(eq + 1).strip());
        double weight = AgentSpec.DEFAULT_WEIGHT;
        boolean draining = false;
        String zone = null;
        Map<String, String> given = new HashMap<>();
        for (int p = 1; p < parts.length; p++) {
            String option = parts[p].strip();
            int oe = option.indexOf('=');
            String key = oe < 0 ? option : option.substring(0, oe);
            String value = oe < 0 ? null : option.substring(oe + 1);
            if (option.chars().anyMatch(Character::isWhitespace)) {
                throw new IllegalArgumentException(where + "option '" + option + "': no white space around or inside a value");
            }
            if (!OPTIONS.containsKey(key)) {
                throw new IllegalArgumentException(where + "unknown option '" + option
                        + "' (weight=N, draining, zone=z)");
            }
            String first = given.putIfAbsent(key, option);
            if (first != null) {
                throw new IllegalArgumentException(where + "option " + key + " given twice: '" + first + "' and '" + option + "'");
            }
            if (value == null && !key.equals("draining") || value != null && value.isEmpty()) {
                throw new IllegalArgumentException(where + "option '" + option + "' needs a value (" + OPTIONS.get(key) + ")");
            }
            switch (key) {
                case "weight" -> weight = weight(where, value);
                case "draining" -> draining = value == null || bool(where, value);
                default -> zone = value;
            }
        }
        return agent(where, name, url, weight, draining, zone);
    }

    private static List<AgentSpec> parseJson(String text) {
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("not valid JSON: " + e.getOriginalMessage()
                    + " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr());
        }
        JsonNode array = root;
        if (root.isObject()) {
            if (root.size() != 1 || !root.has("agents")) {
                throw new IllegalArgumentException("a JSON object must have exactly one field, agents, had " + fieldNames(root));
            }
            array = root.get("agents");
        }
        if (!array.isArray()) {
            throw new IllegalArgumentException("agents must be a JSON array, was " + array.getNodeType());
        }
        List<AgentSpec> agents = new ArrayList<>();
        Map<String, Integer> indexOf = new HashMap<>();
        Map<URI, String> nameAt = new HashMap<>();
        for (int i = 0; i < array.size(); i++) {
            String where = "agent " + i + ": ";
            JsonNode node = array.get(i);
            if (!node.isObject()) {
                throw new IllegalArgumentException(where + "must be an object, was " + node.getNodeType());
            }
            for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                String field = it.next();
                if (!FIELDS.contains(field)) {
                    throw new IllegalArgumentException(where + "unknown field '" + field + "' (name, url, weight, draining, zone)");
                }
            }
            String name = text(where, node, "name", true);
            URI url = uri(where, text(where, node, "url", true));
            double weight = AgentSpec.DEFAULT_WEIGHT;
            if (node.hasNonNull("weight")) {
                if (!node.get("weight").isNumber()) {
                    throw new IllegalArgumentException(where + "weight must be a number, was " + node.get("weight"));
                }
                weight = node.get("weight").doubleValue();
            }
            boolean draining = false;
            if (node.hasNonNull("draining")) {
                if (!node.get("draining").isBoolean()) {
                    throw new IllegalArgumentException(where + "draining must be true or false, was " + node.get("draining"));
                }
                draining = node.get("draining").booleanValue();
            }
            AgentSpec agent = agent(where, name, url, weight, draining, text(where, node, "zone", false));
            Integer first = indexOf.putIfAbsent(agent.name(), i);
            if (first != null) {
                throw new IllegalArgumentException(where + "duplicate name '" + agent.name() + "' (first agent " + first + ")");
            }
            String same = nameAt.putIfAbsent(agent.address(), agent.name());
            if (same != null) {
                throw new IllegalArgumentException(where + "url " + agent.address() + " is agent '" + same
                        + "''s (agent " + indexOf.get(same) + ") too");
            }
            agents.add(agent);
        }
        return agents;
    }

    private static String text(String where, JsonNode node, String field, boolean required) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            if (required) {
                throw new IllegalArgumentException(where + field + " is missing");
            }
            return null;
        }
        if (!value.isTextual()) {
            throw new IllegalArgumentException(where + field + " must be a string, was " + value);
        }
        return value.textValue();
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }

    private static AgentSpec agent(String where, String name, URI url, double weight, boolean draining, String zone) {
        try {
            return new AgentSpec(name, url, weight, draining, zone);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(where + e.getMessage());
        }
    }

    private static URI uri(String where, String value) {
        try {
            return new URI(value);
        } catch (URISyntaxException e) {
            throw new IllegalArgumentException(where + "address must be http(s)://host:port, was '" + value + "' (" + e.getReason() + ")");
        }
    }

    /** Decimal digits with an optional fraction: {@code 2}, {@code 0.5}; no sign, exponent, suffix or white space. */
    private static double weight(String where, String value) {
        if (!WEIGHT.matcher(value).matches()) {
            throw new IllegalArgumentException(where + "weight must be a number, was '" + value
                    + "' (decimal digits with an optional fraction, such as 2 or 0.5)");
        }
        return Double.parseDouble(value);
    }

    private static boolean bool(String where, String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(where + "draining must be true or false, was '" + value + "'");
        };
    }
}
