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
package io.metaroce.samples;

import io.metaroce.datapath.DatapathCounters;
import org.agrona.concurrent.status.CountersReader;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Prints a running driver's counters: system counters, publisher limits and positions, sender positions, receiver
 * high-water marks, subscriber positions, client heartbeats, the network transport's engine, connection and path
 * counters, and custom counters, refreshed every second until Ctrl-C, or once with {@code --once}. Connection and
 * path states print as names. Filters narrow the output to a stream, a session, a channel or counter types, and
 * {@code --non-zero} hides zero counters; {@code --compact} prints one block per counter context (a connection, a
 * path, a stream's publication) instead of one line per counter, so that a network stream fits on a screen. Maps the
 * CnC file read-only: it never disturbs the driver.
 * <p>
 * Usage: {@code ./metaroce stat [--help] [options]}; {@code --help} lists the options.
 */
public final class MetaRoceStat
{
    private static final int COMPACT_WIDTH = 120;

    private MetaRoceStat()
    {
    }

    /**
     * Run the tool and exit with its status.
     *
     * @param args the command line; {@code --help} lists the options.
     */
    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Run the tool.
     *
     * @param args the command line.
     * @param out  where the report and the usage go.
     * @param err  where errors go.
     * @return the exit status: 0 done, 1 no driver, 2 bad command line.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final ToolArguments arguments = arguments();
        final int status = arguments.parse(args, out, err);
        if (ToolArguments.CONTINUE != status)
        {
            return status;
        }

        final Filter filter;
        try
        {
            filter = new Filter(arguments);
        }
        catch (final IllegalArgumentException ex)
        {
            return arguments.usageError(err, ex.getMessage());
        }
        final boolean compact = arguments.has("compact");

        return CncReport.run("stat", arguments, out, err, (counters, printOut) -> print(counters, filter, compact,
            printOut));
    }

    static ToolArguments arguments()
    {
        return CncReport.refreshOptions(new ToolArguments("./metaroce stat",
            "Prints a running driver's counters from its CnC file, read-only, refreshed until Ctrl-C."))
            .option("stream", "ID", null, "only counters of this stream id (stream, connection and path counters)")
            .option("session", "ID", null, "only counters of this session id")
            .option("channel", "TEXT", null, "only counters whose channel or label contains TEXT; connection and " +
                "path counters match through their stream's channel")
            .option("type", "TYPES", null, "only counters of these types, comma separated: " +
                String.join(", ", CounterEntry.typeNames()))
            .flag("non-zero", "hide counters whose value is 0")
            .flag("compact", "one block per counter context (connection, path, publication) instead of one line " +
                "per counter")
            .note("Output: a header line (time, directory, CnC version, driver pid, heartbeat age), then one line " +
                "per counter: id, value, type, label. Connection states (snd-state, rcv-state) and path states " +
                "(path-state) print as names (SETUP, ESTABLISHED, ...; ACTIVE, SUSPECT, EVICTED). Stream counter " +
                "labels read '<type>: <registration id> <session id> <stream id> <channel>'. With --compact: per " +
                "context a line '<type> <context>' (a stream's position counters: 'positions stream=<id> " +
                "session=<id> registration=<id> <channel>') and under it its counters as 'name=value' pairs, the " +
                "type's prefix (snd-, rcv-, path-) dropped and a per-reason counter's reason in brackets.");
    }

    /**
     * Print the counters that pass a filter.
     *
     * @param counters over the driver's counters.
     * @param filter   of the counters to print.
     * @param compact  one block per counter context instead of one line per counter.
     * @param out      to print to.
     * @return the number of counters printed.
     */
    static int print(final CountersReader counters, final Filter filter, final boolean compact, final PrintStream out)
    {
        final List<CounterEntry> selected = filter.select(CounterEntry.readAll(counters));
        if (!compact)
        {
            for (final CounterEntry entry : selected)
            {
                out.format("%4d: %20s  %-16s %s%n",
                    entry.counterId(), entry.valueText(), entry.typeName(), entry.label());
            }
            return selected.size();
        }

        final Map<String, List<CounterEntry>> byContext = new LinkedHashMap<>();
        for (final CounterEntry entry : selected)
        {
            final String context = CounterEntry.isStreamType(entry.typeId()) ?
                "positions stream=" + entry.streamId() + " session=" + entry.sessionId() + " registration=" +
                entry.registrationId() + " " + entry.channel() :
                entry.typeName() + " " + entry.context();
            byContext.computeIfAbsent(context, (k) -> new ArrayList<>()).add(entry);
        }
        for (final Map.Entry<String, List<CounterEntry>> group : byContext.entrySet())
        {
            out.println(group.getKey());
            final StringBuilder line = new StringBuilder("   ");
            for (final CounterEntry entry : group.getValue())
            {
                final String item = " " + shortName(entry) + "=" + entry.valueText();
                if (line.length() + item.length() > COMPACT_WIDTH && line.length() > 3)
                {
                    out.println(line);
                    line.setLength(3);
                }
                line.append(item);
            }
            out.println(line);
        }
        return selected.size();
    }

    private static String shortName(final CounterEntry entry)
    {
        final String name = entry.name();
        switch (entry.typeId())
        {
            case DatapathCounters.SENDER_TYPE_ID:
                return name.startsWith("snd-") ? name.substring(4) : name;
            case DatapathCounters.RECEIVER_TYPE_ID:
                return name.startsWith("rcv-") ? name.substring(4) : name;
            case DatapathCounters.PATH_TYPE_ID:
                return name.startsWith("path-") ? name.substring(5) : name;
            default:
                return name;
        }
    }

    /**
     * Which counters {@code stat} prints: by stream id, session id, channel substring, type names and value.
     */
    static final class Filter
    {
        private final Integer streamId;
        private final Integer sessionId;
        private final String channel;
        private final Set<String> types;
        private final boolean nonZero;

        Filter(final ToolArguments arguments)
        {
            streamId = null != arguments.value("stream") ? arguments.intValue("stream") : null;
            sessionId = null != arguments.value("session") ? arguments.intValue("session") : null;
            channel = arguments.value("channel");
            nonZero = arguments.has("non-zero");
            final String typeList = arguments.value("type");
            if (null == typeList)
            {
                types = null;
            }
            else
            {
                types = new HashSet<>(Arrays.asList(typeList.split(",")));
                for (final String type : types)
                {
                    if (!CounterEntry.typeNames().contains(type))
                    {
                        throw new IllegalArgumentException("--type: unknown counter type '" + type + "', known: " +
                            String.join(", ", CounterEntry.typeNames()));
                    }
                }
            }
        }

        List<CounterEntry> select(final List<CounterEntry> entries)
        {
            final Set<Long> streamsOnChannel = new HashSet<>();
            if (null != channel)
            {
                for (final CounterEntry entry : entries)
                {
                    if (CounterEntry.isStreamType(entry.typeId()) && entry.channel().contains(channel))
                    {
                        streamsOnChannel.add(streamKey(entry));
                    }
                }
            }

            final List<CounterEntry> selected = new ArrayList<>();
            for (final CounterEntry entry : entries)
            {
                if (passes(entry, streamsOnChannel))
                {
                    selected.add(entry);
                }
            }
            return selected;
        }

        private boolean passes(final CounterEntry entry, final Set<Long> streamsOnChannel)
        {
            if (nonZero && 0 == entry.value())
            {
                return false;
            }
            if (null != types && !types.contains(entry.typeName()))
            {
                return false;
            }
            if ((null != streamId || null != sessionId) && !entry.hasStream())
            {
                return false;
            }
            if ((null != streamId && streamId != entry.streamId()) ||
                (null != sessionId && sessionId != entry.sessionId()))
            {
                return false;
            }
            if (null != channel)
            {
                return (entry.hasStream() && streamsOnChannel.contains(streamKey(entry))) ||
                    entry.label().contains(channel);
            }
            return true;
        }

        private static long streamKey(final CounterEntry entry)
        {
            return ((long)entry.streamId() << 32) | (entry.sessionId() & 0xFFFF_FFFFL);
        }
    }
}
