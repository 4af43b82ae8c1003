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

import io.metaroce.client.status.CounterTypeId;
import io.metaroce.client.status.StreamCounterDescriptor;
import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.codec.wire.PathState;
import io.metaroce.datapath.counters.AuthCounters;
import io.metaroce.datapath.counters.DatapathCounters;
import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.List;

/**
 * One allocated counter of a driver as the tools see it: its id, type, value, the name and context its label
 * carries, the stream it belongs to when it has one, and the network connection it belongs to when it has one.
 * Stream counters ({@code pub-lmt}, {@code pub-pos}, {@code sub-pos}, {@code snd-ack-pos}, {@code rcv-hwm}) take the
 * stream, session and registration id from their key and the channel from their label. The network transport's
 * stream state counters ({@code snd-stream-state}, {@code rcv-stream-state}) take the stream and session from their
 * label ({@code stream=<id> session=<id>}), and with its connection and path counters the connection from it
 * ({@code conn=<id>}); a connection carries many streams (wire version 2), so its counters name no stream.
 *
 * @param counterId      of the counter.
 * @param typeId         of the counter.
 * @param value          when read.
 * @param name           the label up to {@code ": "}, a per-reason counter's reason appended as {@code [reason]}.
 * @param context        the rest of the label, the reason removed.
 * @param streamId       of the stream, meaningful only when {@code hasStream}.
 * @param sessionId      of the stream, meaningful only when {@code hasStream}.
 * @param hasStream      true for stream counters and stream state counters.
 * @param connection     the connection id ({@code conn=}, hex) of a connection, path or stream state counter, else
 *                       the empty string.
 * @param registrationId of a stream counter's publication, subscription or image, else the counter's own.
 * @param channel        of a stream counter, else the empty string.
 * @param label          of the counter as the driver wrote it.
 */
record CounterEntry(
    int counterId,
    int typeId,
    long value,
    String name,
    String context,
    int streamId,
    int sessionId,
    boolean hasStream,
    String connection,
    long registrationId,
    String channel,
    String label)
{
    /**
     * Read every allocated counter.
     *
     * @param counters of the driver.
     * @return the counters in id order.
     */
    static List<CounterEntry> readAll(final CountersReader counters)
    {
        final List<CounterEntry> entries = new ArrayList<>();
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            final long value = counters.getCounterValue(counterId);
            final int colon = label.indexOf(": ");
            String name = colon > 0 ? label.substring(0, colon) : label;
            String context = colon > 0 ? label.substring(colon + 2) : "";
            if (isStreamType(typeId))
            {
                final String[] parts = context.split(" ", 4);
                String channel = parts.length == 4 ? parts[3] : "";
                final int at = channel.lastIndexOf(" @");
                if (at > 0)
                {
                    channel = channel.substring(0, at);
                }
                entries.add(new CounterEntry(counterId, typeId, value, name, context,
                    StreamCounterDescriptor.streamId(keyBuffer, 0), StreamCounterDescriptor.sessionId(keyBuffer, 0),
                    true, "", StreamCounterDescriptor.registrationId(keyBuffer, 0), channel, label));
                return;
            }

            final int reason = context.indexOf(" reason=");
            if (reason >= 0)
            {
                name = name + "[" + context.substring(reason + " reason=".length()) + "]";
                context = context.substring(0, reason);
            }
            final String streamId = labelValue(context, "stream=");
            final String sessionId = labelValue(context, "session=");
            final boolean hasStream = isStreamStateType(typeId) && null != streamId && null != sessionId;
            final String connection = isConnectionType(typeId) ? connectionId(context) : "";
            entries.add(new CounterEntry(counterId, typeId, value, name, context,
                hasStream ? Integer.parseInt(streamId) : 0, hasStream ? Integer.parseInt(sessionId) : 0, hasStream,
                connection, counters.getCounterRegistrationId(counterId), "", label));
        });

        return entries;
    }

    /**
     * Short name of a counter type: the driver's stream and system counters, and the network transport's engine,
     * per-plane, packet I/O, sender connection, receiver connection, path and stream state counters.
     *
     * @param typeId of the counter.
     * @return its name.
     */
    static String typeName(final int typeId)
    {
        switch (typeId)
        {
            case DatapathCounters.ENGINE_TYPE_ID:
                return "net-engine";
            case DatapathCounters.SENDER_TYPE_ID:
                return "net-sender";
            case DatapathCounters.RECEIVER_TYPE_ID:
                return "net-receiver";
            case DatapathCounters.PATH_TYPE_ID:
                return "net-path";
            case DatapathCounters.PLANE_TYPE_ID:
                return "net-plane";
            case DatapathCounters.IO_TYPE_ID:
                return "net-io";
            case DatapathCounters.SENDER_STREAM_TYPE_ID:
                return "net-sender-stream";
            case DatapathCounters.RECEIVER_STREAM_TYPE_ID:
                return "net-receiver-stream";
            default:
                return CounterTypeId.name(typeId);
        }
    }

    /**
     * Every type name {@link #typeName} gives.
     *
     * @return the names.
     */
    static List<String> typeNames()
    {
        return List.of("system", "pub-lmt", "pub-pos", "sub-pos", "snd-ack-pos", "rcv-hwm", "client-heartbeat",
            "local-addr", "net-engine", "net-plane", "net-io", "net-sender", "net-receiver", "net-path",
            "net-sender-stream", "net-receiver-stream", "custom");
    }

    /**
     * Is a type one of the driver's stream position counters, keyed by {@link StreamCounterDescriptor}?
     *
     * @param typeId of the counter.
     * @return true for publisher limit and position, subscriber position, acknowledged position, receiver high-water.
     */
    static boolean isStreamType(final int typeId)
    {
        return CounterTypeId.PUBLISHER_LIMIT == typeId || CounterTypeId.PUBLISHER_POSITION == typeId ||
            CounterTypeId.SUBSCRIBER_POSITION == typeId || CounterTypeId.SENDER_ACKNOWLEDGED_POSITION == typeId ||
            CounterTypeId.RECEIVER_HWM == typeId;
    }

    /**
     * Is a type one of the network transport's stream state counters ({@code snd-stream-state},
     * {@code rcv-stream-state}), which name their stream, session and connection in their label?
     *
     * @param typeId of the counter.
     * @return true for a sender or receiver stream's state.
     */
    static boolean isStreamStateType(final int typeId)
    {
        return DatapathCounters.SENDER_STREAM_TYPE_ID == typeId || DatapathCounters.RECEIVER_STREAM_TYPE_ID == typeId;
    }

    /**
     * Does the counter belong to a network connection (a connection, path or stream state counter)?
     *
     * @return true when it names its connection.
     */
    boolean hasConnection()
    {
        return !connection.isEmpty();
    }

    /**
     * The type name of this counter.
     *
     * @return its name.
     */
    String typeName()
    {
        return typeName(typeId);
    }

    /**
     * The value as the tools show it: the state's name for a connection or stream state ({@code snd-state},
     * {@code rcv-state}, {@code snd-stream-state}, {@code rcv-stream-state}: {@link ConnectionState}) or path state
     * ({@code path-state}: {@link PathState}) counter, an authenticated connection's {@code snd-auth-state} or
     * {@code rcv-auth-state} ({@link AuthCounters#stateName}), otherwise the number.
     *
     * @return the text.
     */
    String valueText()
    {
        if ((DatapathCounters.SENDER_TYPE_ID == typeId && "snd-state".equals(name)) ||
            (DatapathCounters.RECEIVER_TYPE_ID == typeId && "rcv-state".equals(name)) || isStreamStateType(typeId))
        {
            return stateName(value, true);
        }
        if (DatapathCounters.PATH_TYPE_ID == typeId && "path-state".equals(name))
        {
            return stateName(value, false);
        }
        if ((DatapathCounters.SENDER_TYPE_ID == typeId && "snd-auth-state".equals(name)) ||
            (DatapathCounters.RECEIVER_TYPE_ID == typeId && "rcv-auth-state".equals(name)))
        {
            return AuthCounters.stateName(value);
        }

        return Long.toString(value);
    }

    private static String stateName(final long value, final boolean connection)
    {
        if (value > 0 && value < 255)
        {
            try
            {
                return connection ? ConnectionState.get((short)value).name() : PathState.get((short)value).name();
            }
            catch (final IllegalArgumentException ignore)
            {
                // a value the codec does not know is shown as the number
            }
        }

        return Long.toString(value);
    }

    private static boolean isConnectionType(final int typeId)
    {
        return DatapathCounters.SENDER_TYPE_ID == typeId || DatapathCounters.RECEIVER_TYPE_ID == typeId ||
            DatapathCounters.PATH_TYPE_ID == typeId || isStreamStateType(typeId);
    }

    /**
     * The {@code conn=<hex>} value of a label's context, or the empty string.
     */
    private static String connectionId(final String context)
    {
        final int start;
        if (context.startsWith("conn="))
        {
            start = "conn=".length();
        }
        else
        {
            final int at = context.indexOf(" conn=");
            if (at < 0)
            {
                return "";
            }
            start = at + " conn=".length();
        }
        int end = start;
        while (end < context.length() && Character.digit(context.charAt(end), 16) >= 0)
        {
            end++;
        }

        return end > start && (end == context.length() || context.charAt(end) == ' ') ?
            context.substring(start, end) : "";
    }

    private static String labelValue(final String context, final String key)
    {
        final int start;
        if (context.startsWith(key))
        {
            start = key.length();
        }
        else
        {
            final int at = context.indexOf(" " + key);
            if (at < 0)
            {
                return null;
            }
            start = at + 1 + key.length();
        }
        int end = start;
        while (end < context.length() && (Character.isDigit(context.charAt(end)) ||
            (end == start && context.charAt(end) == '-')))
        {
            end++;
        }

        return end > start && (end == context.length() || context.charAt(end) == ' ') &&
            Character.isDigit(context.charAt(end - 1)) ? context.substring(start, end) : null;
    }
}
