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

import io.metaroce.datapath.counters.DatapathCounters;
import org.agrona.concurrent.status.CountersReader;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Prints a running driver's counters: system counters, publisher limits and positions, acknowledged positions, receiver
 * high-water marks, subscriber positions, client heartbeats, the network transport's engine, connection, path and
 * stream state counters, and custom counters, refreshed every second until Ctrl-C, or once with {@code --once}.
 * Connection, stream and path states print as names. Filters narrow the output to a stream, a session, a connection,
 * a channel or counter types, and {@code --non-zero} hides zero counters; {@code --compact} prints one block per
 * counter context (a connection, a path, a stream) instead of one line per counter, so that a network stream fits on
 * a screen. A connection carries many streams (wire version 2): its counters name no stream, and a stream filter
 * keeps the counters of the connections that carry the streams it selects. Maps the CnC file read-only: it never
 * disturbs the driver.
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
            .option("stream", "ID", null, "only counters of this stream id: its positions and stream states, and " +
                "the counters of the connections that carry it")
            .option("session", "ID", null, "only counters of this session id, the same way")
            .option("connection", "HEX", null, "only counters of this network connection (conn=HEX): its " +
                "connection, path and stream state counters and the positions of the streams it carries")
            .option("channel", "TEXT", null, "only counters whose channel or label contains TEXT; stream states " +
                "and connection counters also match through the channel of a stream")
            .option("type", "TYPES", null, "only counters of these types, comma separated: " +
                String.join(", ", CounterEntry.typeNames()))
            .flag("non-zero", "hide counters whose value is 0")
            .flag("compact", "one block per counter context (connection, path, publication) instead of one line " +
                "per counter")
            .note("Output: a header line (time, directory, CnC version, driver pid, heartbeat age), then one line " +
                "per counter: id, value, type, label. Connection and stream states (snd-state, rcv-state, " +
                "snd-stream-state, rcv-stream-state) and path states (path-state) print as names (SETUP, " +
                "ESTABLISHED, ...; ACTIVE, SUSPECT, EVICTED). Stream counter labels read '<type>: <registration id> " +
                "<session id> <stream id> <channel>'; connection counter labels 'conn=<id> agent=... <endpoints>', " +
                "stream state labels 'conn=<id> stream=<id> session=<id> agent=... <endpoints>'. With --compact: " +
                "per context a line '<type> <context>' (a stream's position counters: 'positions stream=<id> " +
                "session=<id> registration=<id> <channel>') and under it its counters as 'name=value' pairs, the " +
                "type's prefix (snd-, rcv-, path-, snd-stream-, rcv-stream-) dropped and a per-reason counter's " +
                "reason in brackets.");
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
            case DatapathCounters.SENDER_STREAM_TYPE_ID:
                return name.startsWith("snd-stream-") ? name.substring(11) : name;
            case DatapathCounters.RECEIVER_STREAM_TYPE_ID:
                return name.startsWith("rcv-stream-") ? name.substring(11) : name;
            default:
                return name;
        }
    }

    /**
     * Which counters {@code stat} prints: by stream id, session id, connection, channel substring, type names and
     * value. Streams are selected first (position and stream state counters that pass the stream, session,
     * connection and channel filters); a connection or path counter passes a stream or session filter when its
     * connection carries a selected stream, a connection filter when it is that connection's, and a channel filter
     * when its label contains the text or its connection carries a selected stream. Counters of neither kind (system,
     * engine, plane, packet I/O, heartbeat, custom) pass no stream, session or connection filter, and a channel filter
     * only by their label.
     */
    static final class Filter
    {
        private final Integer streamId;
        private final Integer sessionId;
        private final String connection;
        private final String channel;
        private final Set<String> types;
        private final boolean nonZero;

        Filter(final ToolArguments arguments)
        {
            streamId = null != arguments.value("stream") ? arguments.intValue("stream") : null;
            sessionId = null != arguments.value("session") ? arguments.intValue("session") : null;
            final String connectionValue = arguments.value("connection");
            connection = null == connectionValue ? null : connectionValue.toLowerCase(Locale.ROOT);
            if (null != connection && !connection.matches("[0-9a-f]{1,8}"))
            {
                throw new IllegalArgumentException("--connection: a connection id in hex, as in conn=5b55e3aa: '" +
                    connectionValue + "'");
            }
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
            final Set<Long> streamsOnConnection = new HashSet<>();
            for (final CounterEntry entry : entries)
            {
                if (null != channel && CounterEntry.isStreamType(entry.typeId()) && entry.channel().contains(channel))
                {
                    streamsOnChannel.add(streamKey(entry));
                }
                if (null != connection && CounterEntry.isStreamStateType(entry.typeId()) && entry.hasStream() &&
                    connection.equals(entry.connection()))
                {
                    streamsOnConnection.add(streamKey(entry));
                }
            }

            final Set<String> carryingConnections = new HashSet<>();
            for (final CounterEntry entry : entries)
            {
                if (CounterEntry.isStreamStateType(entry.typeId()) && entry.hasStream() &&
                    selectsStream(entry, streamsOnChannel, streamsOnConnection))
                {
                    carryingConnections.add(entry.connection());
                }
            }

            final List<CounterEntry> selected = new ArrayList<>();
            for (final CounterEntry entry : entries)
            {
                if (passes(entry, streamsOnChannel, streamsOnConnection, carryingConnections))
                {
                    selected.add(entry);
                }
            }
            return selected;
        }

        private boolean passes(
            final CounterEntry entry,
            final Set<Long> streamsOnChannel,
            final Set<Long> streamsOnConnection,
            final Set<String> carryingConnections)
        {
            if (nonZero && 0 == entry.value())
            {
                return false;
            }
            if (null != types && !types.contains(entry.typeName()))
            {
                return false;
            }
            if (entry.hasStream())
            {
                return selectsStream(entry, streamsOnChannel, streamsOnConnection);
            }
            if (entry.hasConnection())
            {
                if ((null != streamId || null != sessionId) && !carryingConnections.contains(entry.connection()))
                {
                    return false;
                }
                if (null != connection && !connection.equals(entry.connection()))
                {
                    return false;
                }
                return null == channel || entry.label().contains(channel) ||
                    carryingConnections.contains(entry.connection());
            }
            if (null != streamId || null != sessionId || null != connection)
            {
                return false;
            }
            return null == channel || entry.label().contains(channel);
        }

        /**
         * Does a stream's position or state counter pass the stream, session, connection and channel filters?
         */
        private boolean selectsStream(
            final CounterEntry entry, final Set<Long> streamsOnChannel, final Set<Long> streamsOnConnection)
        {
            if ((null != streamId && streamId != entry.streamId()) ||
                (null != sessionId && sessionId != entry.sessionId()))
            {
                return false;
            }
            final boolean isState = CounterEntry.isStreamStateType(entry.typeId());
            if (null != connection &&
                (isState ? !connection.equals(entry.connection()) : !streamsOnConnection.contains(streamKey(entry))))
            {
                return false;
            }
            return null == channel || streamsOnChannel.contains(streamKey(entry)) || entry.label().contains(channel);
        }

        private static long streamKey(final CounterEntry entry)
        {
            return ((long)entry.streamId() << 32) | (entry.sessionId() & 0xFFFF_FFFFL);
        }
    }
}
