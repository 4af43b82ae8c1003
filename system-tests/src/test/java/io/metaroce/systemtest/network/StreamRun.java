/*
 * Copyright 2026 the MetaRoCE authors
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 * https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package io.metaroce.systemtest.network;

import io.metaroce.driver.Configuration;
import io.metaroce.systemtest.netns.Host;
import io.metaroce.systemtest.netns.JavaCommand;
import io.metaroce.systemtest.netns.KeyValueLine;
import io.metaroce.systemtest.netns.NetnsProcess;
import io.metaroce.systemtest.netns.NetnsTopology;
import org.agrona.IoUtil;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A checked stream from a {@link StreamSource} on host A to a {@link StreamSink} on host B of a topology, over every
 * plane: starts both JVMs, reads their lines, and removes their driver directories even if they were killed.
 */
final class StreamRun implements AutoCloseable
{
    static final int PORT = 40_456;
    static final long START_TIMEOUT_MS = 30_000;
    static final long WAIT_MS = 30_000;
    private static final List<String> TRANSPORT_PROPERTIES = List.of(Configuration.TRANSPORT_PROP_NAME,
        Configuration.TRANSPORT_BATCH_LENGTH_PROP_NAME, Configuration.TRANSPORT_SEGMENTATION_PROP_NAME);

    private final NetnsTopology topology;
    private final String sourceEndpoints;
    private final List<String> directories = new ArrayList<>();
    private NetnsProcess sink;
    private NetnsProcess source;

    StreamRun(final NetnsTopology topology)
    {
        this(topology, null);
    }

    /**
     * A run whose source sends to other endpoints than the sink's, e.g. a relay's between them.
     */
    StreamRun(final NetnsTopology topology, final String sourceEndpoints)
    {
        this.topology = topology;
        this.sourceEndpoints = sourceEndpoints;
    }

    NetnsProcess startSink(final String... options)
    {
        sink = start(Host.B, StreamSink.class, "sink", options);
        return sink;
    }

    NetnsProcess startSource(final String... options)
    {
        final List<String> args = new ArrayList<>(List.of("--interfaces", addresses(Host.A)));
        args.addAll(List.of(options));
        source = start(Host.A, StreamSource.class, "source", args.toArray(new String[0]));
        return source;
    }

    NetnsProcess sink()
    {
        return sink;
    }

    NetnsProcess source()
    {
        return source;
    }

    /**
     * Wait for both to exit and return their RESULT lines, source first; fails with their output if either exits
     * non-zero.
     */
    KeyValueLine[] awaitResults(final long timeoutMs)
    {
        final int sourceExit = source.awaitExit(timeoutMs);
        final int sinkExit = sink.awaitExit(timeoutMs);
        final KeyValueLine sourceResult = result(source);
        final KeyValueLine sinkResult = result(sink);
        System.out.println("source " + sourceResult);
        System.out.println("sink   " + sinkResult);
        if (0 != sourceExit || 0 != sinkExit)
        {
            fail("source exited with " + sourceExit + ", sink with " + sinkExit + "\nsource: " + sourceResult +
                "\nsink: " + sinkResult + "\n--- " + source.stdoutFile() + " (problems, driver errors) ---\n" +
                problems(source) + "\n--- " + sink.stdoutFile() + " ---\n" + problems(sink) +
                "\n(full output and counters in " + topology.outputDir() + ")");
        }
        assertEquals("ok", sinkResult.string("status"), sinkResult.toString());
        assertEquals(0, sinkResult.longValue("duplicates"), "duplicates: " + sinkResult);
        assertEquals(0, sinkResult.longValue("gaps"), "gaps: " + sinkResult);
        assertEquals(0, sinkResult.longValue("corrupt"), "corrupt: " + sinkResult);
        assertEquals(0, sinkResult.longValue("missing"), "missing: " + sinkResult);
        assertEquals(sourceResult.longValue("messages"), sinkResult.longValue("in_order"), "every message sent");

        return new KeyValueLine[]{ sourceResult, sinkResult };
    }

    static KeyValueLine result(final NetnsProcess process)
    {
        final String line = process.lastLine("RESULT ");
        if (null == line)
        {
            fail(process + " printed no RESULT:\n" + String.join("\n", process.lines()));
        }
        return KeyValueLine.parse(line);
    }

    static List<KeyValueLine> lines(final NetnsProcess process, final String prefix)
    {
        final List<KeyValueLine> lines = new ArrayList<>();
        for (final String line : process.lines(prefix))
        {
            lines.add(KeyValueLine.parse(line));
        }
        return lines;
    }

    /**
     * The last PROGRESS line, or null.
     */
    static KeyValueLine lastProgress(final NetnsProcess process)
    {
        final String line = process.lastLine("PROGRESS ");
        return null == line ? null : KeyValueLine.parse(line);
    }

    /**
     * A PROGRESS line printed after this call.
     */
    static KeyValueLine awaitNewProgress(final NetnsProcess process)
    {
        final int seen = process.lines("PROGRESS ").size();
        awaitAtLeast("new progress from " + process, seen + 1, () -> process.lines("PROGRESS ").size());
        return lastProgress(process);
    }

    static long progressValue(final NetnsProcess process, final String key)
    {
        final KeyValueLine line = lastProgress(process);
        return null == line ? 0 : line.longValue(key);
    }

    static void awaitAtLeast(final String what, final long expected, final LongSupplier value)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        long last;
        while ((last = value.getAsLong()) < expected)
        {
            if (System.nanoTime() - deadlineNs > 0)
            {
                fail(what + ": expected at least " + expected + " within " + WAIT_MS + " ms, last " + last);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(20));
        }
    }

    static void sleepMs(final long ms)
    {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(ms));
    }

    String endpoints()
    {
        final StringBuilder endpoints = new StringBuilder();
        for (int plane = 0; plane < topology.planeCount(); plane++)
        {
            endpoints.append(0 == plane ? "" : ",").append(topology.address(Host.B, plane)).append(':').append(PORT);
        }
        return endpoints.toString();
    }

    public void close()
    {
        try
        {
            for (final NetnsProcess process : new NetnsProcess[]{ source, sink })
            {
                if (null != process)
                {
                    process.close();
                }
            }
        }
        finally
        {
            for (final String directory : directories)
            {
                IoUtil.delete(new File(directory), true);
            }
        }
    }

    String directory(final String name)
    {
        return "/dev/shm/metaroce-netns-" + topology.name() + "-" + name;
    }

    private NetnsProcess start(final Host host, final Class<?> mainClass, final String name, final String[] options)
    {
        final String directory = directory(name);
        directories.add(directory);
        final String endpoints = Host.A == host && null != sourceEndpoints ? sourceEndpoints : endpoints();
        final List<String> args = new ArrayList<>(List.of("--endpoints", endpoints, "--dir", directory));
        args.addAll(List.of(options));
        final JavaCommand command = new JavaCommand(mainClass.getName())
            .name(name)
            .jvmOption("-Xmx256m")
            .jvmOption("-XX:TieredStopAtLevel=1")
            .args(args.toArray(new String[0]));
        // the embedded drivers run the packet I/O this test JVM was asked for (the netns-nio execution)
        for (final String property : TRANSPORT_PROPERTIES)
        {
            final String value = System.getProperty(property);
            if (null != value)
            {
                command.property(property, value);
            }
        }
        final NetnsProcess process = topology.javaProcess(host, command);
        final String ready = process.awaitLine("READY", START_TIMEOUT_MS);
        final boolean batched = !"nio".equals(System.getProperty(Configuration.TRANSPORT_PROP_NAME));
        assertTrue(ready.endsWith(" batched=" + batched), "the driver runs the transport asked for: " + ready);
        return process;
    }

    private String addresses(final Host host)
    {
        final StringBuilder addresses = new StringBuilder();
        for (int plane = 0; plane < topology.planeCount(); plane++)
        {
            addresses.append(0 == plane ? "" : ",").append(topology.address(host, plane));
        }
        return addresses.toString();
    }

    private static String problems(final NetnsProcess process)
    {
        final StringBuilder problems = new StringBuilder();
        for (final String line : process.lines())
        {
            if (!line.startsWith("PROGRESS ") && !line.startsWith("COUNTER ") && !line.startsWith("STALL "))
            {
                problems.append(line).append('\n');
            }
        }
        return problems.toString();
    }
}
