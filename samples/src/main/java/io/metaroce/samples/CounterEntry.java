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
import io.metaroce.datapath.DatapathCounters;
import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.List;

/**
 * One allocated counter of a driver as the tools see it: its id, type, value, the name and context its label
 * carries, and the stream it belongs to when it has one. Stream counters ({@code pub-lmt}, {@code pub-pos},
 * {@code sub-pos}, {@code snd-pos}, {@code rcv-hwm}) take the stream, session and registration id from their key
 * and the channel from their label; the network transport's connection and path counters take the stream and
 * session from their label ({@code stream=<id> session=<id>}).
 *
 * @param counterId      of the counter.
 * @param typeId         of the counter.
 * @param value          when read.
 * @param name           the label up to {@code ": "}, a per-reason counter's reason appended as {@code [reason]}.
 * @param context        the rest of the label, the reason removed.
 * @param streamId       of the stream, meaningful only when {@code hasStream}.
 * @param sessionId      of the stream, meaningful only when {@code hasStream}.
 * @param hasStream      true for stream, connection and path counters.
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
                    true, StreamCounterDescriptor.registrationId(keyBuffer, 0), channel, label));
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
            final boolean hasStream = isConnectionType(typeId) && null != streamId && null != sessionId;
            entries.add(new CounterEntry(counterId, typeId, value, name, context,
                hasStream ? Integer.parseInt(streamId) : 0, hasStream ? Integer.parseInt(sessionId) : 0, hasStream,
                counters.getCounterRegistrationId(counterId), "", label));
        });

        return entries;
    }

    /**
     * Short name of a counter type: the driver's stream and system counters, and the network transport's engine,
     * per-plane, packet I/O, sender connection, receiver connection and path counters.
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
        return List.of("system", "pub-lmt", "pub-pos", "sub-pos", "snd-pos", "rcv-hwm", "client-heartbeat",
            "net-engine", "net-plane", "net-io", "net-sender", "net-receiver", "net-path", "custom");
    }

    /**
     * Is a type one of the driver's stream position counters, keyed by {@link StreamCounterDescriptor}?
     *
     * @param typeId of the counter.
     * @return true for publisher limit and position, subscriber position, sender position, receiver high-water.
     */
    static boolean isStreamType(final int typeId)
    {
        return CounterTypeId.PUBLISHER_LIMIT == typeId || CounterTypeId.PUBLISHER_POSITION == typeId ||
            CounterTypeId.SUBSCRIBER_POSITION == typeId || CounterTypeId.SENDER_POSITION == typeId ||
            CounterTypeId.RECEIVER_HWM == typeId;
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
     * The value as the tools show it: the state's name for a connection state ({@code snd-state},
     * {@code rcv-state}: {@link ConnectionState}) or path state ({@code path-state}: {@link PathState}) counter,
     * otherwise the number.
     *
     * @return the text.
     */
    String valueText()
    {
        if ((DatapathCounters.SENDER_TYPE_ID == typeId && "snd-state".equals(name)) ||
            (DatapathCounters.RECEIVER_TYPE_ID == typeId && "rcv-state".equals(name)))
        {
            return stateName(value, true);
        }
        if (DatapathCounters.PATH_TYPE_ID == typeId && "path-state".equals(name))
        {
            return stateName(value, false);
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
            DatapathCounters.PATH_TYPE_ID == typeId;
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
