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
package io.metaroce.client.status;

/**
 * Type ids of the counters the driver allocates in its counters file. Tools use them to interpret a counter; the
 * client uses them to find its own heartbeat counter. Type ids below {@link #MIN_CUSTOM_TYPE_ID} are reserved for
 * the driver; from it on they are free for applications' custom counters.
 */
public final class CounterTypeId
{
    /**
     * System counter of the driver: errors, timeouts, rejected commands, cycle times. Key: the counter's id in
     * {@code SystemCounterDescriptor}.
     */
    public static final int SYSTEM_COUNTER = 0;

    /**
     * Publisher limit of a publication: the position its publishers may not pass. Written by the driver, read by
     * publishers. Key: {@link StreamCounterDescriptor}.
     */
    public static final int PUBLISHER_LIMIT = 1;

    /**
     * Publisher position of a publication, sampled by the driver. Key: {@link StreamCounterDescriptor}.
     */
    public static final int PUBLISHER_POSITION = 2;

    /**
     * Position of one subscription in one image. Written by the subscriber, read by the driver. Key:
     * {@link StreamCounterDescriptor} with the subscription's registration id.
     */
    public static final int SUBSCRIBER_POSITION = 3;

    /**
     * Heartbeat of a client: epoch milliseconds of its last keepalive. Written by the client, shown by tools, freed
     * by the driver when the client goes. Registration id and key: the client id.
     */
    public static final int CLIENT_HEARTBEAT = 4;

    /**
     * Acknowledged position of a network publication ({@code snd-ack-pos}): the position its receiver acknowledged,
     * every byte before it received and placed; not how far the sender has sent. Written by the driver's sender, read
     * by its conductor to move the publisher limit. Key: {@link StreamCounterDescriptor}.
     */
    public static final int SENDER_ACKNOWLEDGED_POSITION = 5;

    /**
     * Receiver high-water mark of a network image: the stream position just past the furthest frame the receiver has
     * placed, placed out of order or not. Written by the driver's receiver, read by tools (receiver backlog: this
     * minus a subscriber position). Key: {@link StreamCounterDescriptor} with the image's correlation id.
     */
    public static final int RECEIVER_HWM = 6;

    /**
     * Local socket addresses of a network endpoint: the addresses and port its receive sockets are bound to, one per
     * plane, in the label after {@code "rcv-local-addr: "} (a receive endpoint) or {@code "snd-local-addr: "} (a send
     * endpoint's control sockets), as {@code address:port} separated by commas. Value 1 while the endpoint is open.
     * Its id is the channel status counter id of the PUBLICATION_READY and SUBSCRIPTION_READY of the channels that
     * use the endpoint. No key.
     */
    public static final int LOCAL_SOCKET_ADDRESS = 7;

    /**
     * First type id of applications' custom counters: the driver refuses ADD_COUNTER with a lower type id (CLASH),
     * which it reserves for its own counters.
     */
    public static final int MIN_CUSTOM_TYPE_ID = 1000;

    /**
     * First type id of the block the driver's transport engines use for their counters (engine, connection, path,
     * plane, packet I/O and stream state: {@code io.metaroce.datapath.counters.DatapathCounters}); the driver refuses
     * ADD_COUNTER with a type id in the block (CLASH), so that tools never read an application's counter as one of
     * the driver's.
     */
    public static final int MIN_DATAPATH_TYPE_ID = 4100;

    /**
     * Last type id of the transport engines' block ({@link #MIN_DATAPATH_TYPE_ID}).
     */
    public static final int MAX_DATAPATH_TYPE_ID = 4199;

    /**
     * Is a type id the driver's, so that an application may not use it for a custom counter?
     *
     * @param typeId of a counter.
     * @return true below {@link #MIN_CUSTOM_TYPE_ID} and in the transport engines' block.
     */
    public static boolean isReserved(final int typeId)
    {
        return typeId < MIN_CUSTOM_TYPE_ID || (typeId >= MIN_DATAPATH_TYPE_ID && typeId <= MAX_DATAPATH_TYPE_ID);
    }

    private CounterTypeId()
    {
    }

    /**
     * Short name of a counter type, for tools.
     *
     * @param typeId of the counter.
     * @return its name, or "custom" for an application type.
     */
    public static String name(final int typeId)
    {
        switch (typeId)
        {
            case SYSTEM_COUNTER:
                return "system";
            case PUBLISHER_LIMIT:
                return "pub-lmt";
            case PUBLISHER_POSITION:
                return "pub-pos";
            case SUBSCRIBER_POSITION:
                return "sub-pos";
            case CLIENT_HEARTBEAT:
                return "client-heartbeat";
            case SENDER_ACKNOWLEDGED_POSITION:
                return "snd-ack-pos";
            case RECEIVER_HWM:
                return "rcv-hwm";
            case LOCAL_SOCKET_ADDRESS:
                return "local-addr";
            default:
                return "custom";
        }
    }
}
