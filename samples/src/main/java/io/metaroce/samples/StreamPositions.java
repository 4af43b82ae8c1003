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
import io.metaroce.datapath.counters.DatapathCounters;
import org.agrona.concurrent.status.CountersReader;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The stream position counters of a driver grouped by stream: per (stream id, session id), the publications (publisher
 * position and limit, acknowledged position), the images (receiver high-water mark), the subscriber positions and, for
 * a network stream, the state of its stream in the connection that carries it (sender or receiver side), as the
 * {@code streams} and {@code backlog} tools show them. A stream published and subscribed in the same driver (IPC, or
 * both ends of a network stream) has all of them in one group.
 */
final class StreamPositions
{
    /**
     * One publication of a stream.
     *
     * @param registrationId       of the publication.
     * @param channel              of the publication.
     * @param publisherPos         {@code pub-pos}, or {@link #NONE}.
     * @param publisherLimit       {@code pub-lmt}, or {@link #NONE}.
     * @param acknowledgedPosition {@code snd-ack-pos} of a network publication, or {@link #NONE}.
     */
    record Publication(
        long registrationId, String channel, long publisherPos, long publisherLimit, long acknowledgedPosition)
    {
    }

    /**
     * One image of a network stream on the receiving side.
     *
     * @param registrationId   correlation id of the image.
     * @param channel          of the receive endpoint.
     * @param receiverHwm      {@code rcv-hwm}.
     */
    record Image(long registrationId, String channel, long receiverHwm)
    {
    }

    /**
     * One subscriber position: a subscription reading one image.
     *
     * @param registrationId of the subscription.
     * @param channel        of the subscription.
     * @param position       {@code sub-pos}.
     */
    record Subscriber(long registrationId, String channel, long position)
    {
    }

    /**
     * The state of a network stream in the connection that carries it ({@code snd-stream-state} or
     * {@code rcv-stream-state}).
     *
     * @param side       {@code sender} or {@code receiver}.
     * @param connection the connection's id ({@code conn=}, hex).
     * @param state      the state's name (SETUP, ESTABLISHED, ...).
     */
    record StreamState(String side, String connection, String state)
    {
    }

    /**
     * The counters of one stream session.
     *
     * @param streamId     of the stream.
     * @param sessionId    of the session.
     * @param channel      of its publication, or of its first counter when it has none here.
     * @param publications in this driver.
     * @param images       in this driver.
     * @param subscribers  in this driver.
     * @param states       of the network stream in its connections in this driver.
     */
    record Stream(
        int streamId,
        int sessionId,
        String channel,
        List<Publication> publications,
        List<Image> images,
        List<Subscriber> subscribers,
        List<StreamState> states)
    {
        /**
         * Whether the stream's counters match a filter.
         *
         * @param streamId      wanted, or null for any.
         * @param channelFilter a substring of a channel of the stream, or null for any.
         * @return true if it matches.
         */
        boolean matches(final Integer streamId, final String channelFilter)
        {
            if (null != streamId && streamId != this.streamId)
            {
                return false;
            }
            if (null == channelFilter || channel.contains(channelFilter))
            {
                return true;
            }
            for (final Image image : images)
            {
                if (image.channel().contains(channelFilter))
                {
                    return true;
                }
            }
            for (final Subscriber subscriber : subscribers)
            {
                if (subscriber.channel().contains(channelFilter))
                {
                    return true;
                }
            }
            return false;
        }

        /**
         * Where the stream's subscribers could read up to here: the furthest receiver high-water mark of its images
         * on a network stream, else the furthest publisher position (IPC).
         *
         * @return the position, or {@link #NONE} when the stream has neither here.
         */
        long head()
        {
            long head = NONE;
            for (final Image image : images)
            {
                head = Math.max(head, image.receiverHwm());
            }
            if (NONE != head)
            {
                return head;
            }
            for (final Publication publication : publications)
            {
                head = Math.max(head, publication.publisherPos());
            }
            return head;
        }
    }

    /**
     * A position a stream has no counter for.
     */
    static final long NONE = Long.MIN_VALUE;

    private StreamPositions()
    {
    }

    /**
     * Read and group the stream counters.
     *
     * @param counters of the driver.
     * @return the streams, in order of their first counter.
     */
    static List<Stream> read(final CountersReader counters)
    {
        final Map<Long, List<CounterEntry>> byStream = new LinkedHashMap<>();
        for (final CounterEntry entry : CounterEntry.readAll(counters))
        {
            if (CounterEntry.isStreamType(entry.typeId()) ||
                (CounterEntry.isStreamStateType(entry.typeId()) && entry.hasStream()))
            {
                final long key = ((long)entry.streamId() << 32) | (entry.sessionId() & 0xFFFF_FFFFL);
                byStream.computeIfAbsent(key, (k) -> new ArrayList<>()).add(entry);
            }
        }

        final List<Stream> streams = new ArrayList<>();
        for (final List<CounterEntry> entries : byStream.values())
        {
            streams.add(toStream(entries));
        }
        return streams;
    }

    private static Stream toStream(final List<CounterEntry> entries)
    {
        final Map<Long, long[]> publicationPositions = new LinkedHashMap<>();
        final Map<Long, String> publicationChannels = new LinkedHashMap<>();
        final List<Image> images = new ArrayList<>();
        final List<Subscriber> subscribers = new ArrayList<>();
        final List<StreamState> states = new ArrayList<>();
        for (final CounterEntry entry : entries)
        {
            switch (entry.typeId())
            {
                case DatapathCounters.SENDER_STREAM_TYPE_ID:
                    states.add(new StreamState("sender", entry.connection(), entry.valueText()));
                    break;
                case DatapathCounters.RECEIVER_STREAM_TYPE_ID:
                    states.add(new StreamState("receiver", entry.connection(), entry.valueText()));
                    break;
                case CounterTypeId.PUBLISHER_POSITION:
                case CounterTypeId.PUBLISHER_LIMIT:
                case CounterTypeId.SENDER_ACKNOWLEDGED_POSITION:
                    final long[] positions = publicationPositions.computeIfAbsent(
                        entry.registrationId(), (k) -> new long[]{ NONE, NONE, NONE });
                    publicationChannels.putIfAbsent(entry.registrationId(), entry.channel());
                    final int index = CounterTypeId.PUBLISHER_POSITION == entry.typeId() ? 0 :
                        CounterTypeId.PUBLISHER_LIMIT == entry.typeId() ? 1 : 2;
                    positions[index] = entry.value();
                    break;
                case CounterTypeId.RECEIVER_HWM:
                    images.add(new Image(entry.registrationId(), entry.channel(), entry.value()));
                    break;
                default:
                    subscribers.add(new Subscriber(entry.registrationId(), entry.channel(), entry.value()));
                    break;
            }
        }

        final List<Publication> publications = new ArrayList<>();
        for (final Map.Entry<Long, long[]> publication : publicationPositions.entrySet())
        {
            final long[] positions = publication.getValue();
            publications.add(new Publication(publication.getKey(), publicationChannels.get(publication.getKey()),
                positions[0], positions[1], positions[2]));
        }
        final CounterEntry first = entries.get(0);
        String channel = first.channel();
        for (final CounterEntry entry : entries)
        {
            if (!entry.channel().isEmpty())
            {
                channel = entry.channel();
                break;
            }
        }
        if (!publications.isEmpty())
        {
            channel = publications.get(0).channel();
        }

        return new Stream(first.streamId(), first.sessionId(), channel, publications, images, subscribers, states);
    }
}
