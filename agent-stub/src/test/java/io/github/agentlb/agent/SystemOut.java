package io.github.agentlb.agent;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** What a piece of code prints on {@code System.out}, for tests of a main's text. Not thread-safe: one test at a time. */
public final class SystemOut {

    /** Code that may throw, run with {@code System.out} captured. */
    public interface Action {
        void run() throws Exception;
    }

    private SystemOut() {
    }

    /** Runs {@code action} with {@code System.out} captured; returns what it printed (UTF-8). */
    public static String of(Action action) throws Exception {
        PrintStream out = System.out;
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
        try {
            action.run();
        } finally {
            System.setOut(out);
        }
        return printed.toString(StandardCharsets.UTF_8);
    }
}
