import com.sun.jdi.Bootstrap;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.MethodEntryEvent;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.MethodEntryRequest;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;

/**
 * Which of the project's classes one request runs through, read from a running proxy with the
 * JDK's debugger interface (JDI, module {@code jdk.jdi}): attaches to a JVM started with
 * {@code -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:PORT}, sends the
 * request once untraced (so that start-up work is not counted), then again with a method-entry
 * request filtered to {@code io.github.agentlb.*}, and prints each class whose methods ran (a
 * lambda under the class that wrote it) with its count of method entries and the threads it ran on,
 * then how many classes and how many top-level classes ran on the request's threads, and which ran
 * only on background threads (health probes, timers), which are not counted.
 *
 * <p>Run with the JDK's single-file launcher, from benchmarks/classes-per-request.sh:
 * {@code java benchmarks/ClassesPerRequest.java DEBUG_PORT URL BODY}. A tool, not a test: it asserts
 * nothing and its count depends on the route the proxy runs.
 */
public class ClassesPerRequest {

    public static void main(String[] args) throws Exception {
        int debugPort = Integer.parseInt(args[0]);
        URI url = URI.create(args[1]);
        String body = args[2];
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        System.out.println("untraced request: " + send(client, url, body));

        AttachingConnector socket = Bootstrap.virtualMachineManager().attachingConnectors().stream()
                .filter(c -> c.transport().name().equals("dt_socket")).findFirst().orElseThrow();
        Map<String, Connector.Argument> arguments = socket.defaultArguments();
        arguments.get("hostname").setValue("127.0.0.1");
        arguments.get("port").setValue(Integer.toString(debugPort));
        VirtualMachine vm = socket.attach(arguments);
        MethodEntryRequest entries = vm.eventRequestManager().createMethodEntryRequest();
        entries.addClassFilter("io.github.agentlb.*");
        entries.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
        entries.enable();

        Map<String, Integer> calls = new TreeMap<>();
        Map<String, TreeSet<String>> threads = new TreeMap<>();
        CompletableFuture<String> answer = CompletableFuture.supplyAsync(() -> send(client, url, body));
        while (!answer.isDone()) {
            EventSet events = vm.eventQueue().remove(200);
            if (events == null) {
                continue;
            }
            for (Event event : events) {
                if (event instanceof MethodEntryEvent entry) {
                    String type = withoutLambda(entry.method().declaringType().name());
                    calls.merge(type, 1, Integer::sum);
                    threads.computeIfAbsent(type, t -> new TreeSet<>()).add(threadKind(entry.thread().name()));
                }
            }
            events.resume();
        }
        entries.disable();
        vm.dispose();
        System.out.println("traced request: " + answer.get());
        TreeSet<String> topLevel = new TreeSet<>();
        TreeSet<String> packages = new TreeSet<>();
        TreeSet<String> background = new TreeSet<>();
        calls.forEach((type, n) -> {
            Set<String> kinds = threads.get(type);
            System.out.printf("%8d  %-70s %s%n", n, type, kinds);
            if (kinds.stream().allMatch(ClassesPerRequest::isBackground)) {
                background.add(type);
                return;
            }
            topLevel.add(type.contains("$") ? type.substring(0, type.indexOf('$')) : type);
            packages.add(type.substring(0, type.lastIndexOf('.')));
        });
        System.out.println((calls.size() - background.size()) + " classes of io.github.agentlb.* ran on the request's"
                + " threads (" + topLevel.size() + " top-level), in packages " + packages);
        System.out.println(background.size() + " more ran only on background threads (health probes, timers): "
                + background);
    }

    /** A thread's name without its number: {@code Camel (camel-1) thread #7 - Health} gives {@code Health}. */
    static String threadKind(String name) {
        return name.replaceAll("[#-]?\\d+", "").replaceAll("\\s+", " ").trim();
    }

    /**
     * Whether a thread kind is background work that runs whether or not a request comes: health probes,
     * timers, schedulers, and plain {@code Thread-N} threads (the probes' own). The request itself runs
     * on the proxy's Netty event loops.
     */
    static boolean isBackground(String kind) {
        String lower = kind.toLowerCase(java.util.Locale.ROOT);
        return lower.equals("thread") || lower.contains("health") || lower.contains("timer")
                || lower.contains("scheduler");
    }

    /** A lambda's class {@code a.b.Outer$$Lambda$12/0x...} counts as the class that wrote it, {@code a.b.Outer}. */
    static String withoutLambda(String name) {
        int lambda = name.indexOf("$$Lambda");
        return lambda < 0 ? name : name.substring(0, lambda);
    }

    private static String send(HttpClient client, URI url, String body) {
        try {
            HttpResponse<String> response = client.send(HttpRequest.newBuilder(url)
                    .header("Content-Type", "application/json")
                    .timeout(Duration.ofSeconds(120))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            String text = response.body();
            return response.statusCode() + " " + response.headers().firstValue("content-type").orElse("")
                    + ", " + text.length() + " chars, " + text.split("\n\n").length + " events";
        } catch (Exception e) {
            throw new IllegalStateException(url + ": " + e, e);
        }
    }
}
