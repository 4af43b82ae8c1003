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
package io.metaroce.datapath.connection;

import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.counters.PlaneCounters;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderCongestionControlSupplier;
import io.metaroce.datapath.settings.SenderPathPolicySupplier;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import org.agrona.collections.Long2ObjectHashMap;
import org.agrona.concurrent.NanoClock;

import java.util.random.RandomGenerator;

/**
 * What a connection needs of the engine and the socket group that carry it, so that connections call up through this
 * interface rather than hold either: the group's transport, proxy, settings, handlers, stream table, credit scheduler
 * and counter labels; the engine's clock, random sources and policy suppliers; and the engine's drop counting, reply
 * limits, bounds per peer and retirement of connections.
 * <p>
 * One host per socket group; connections of the same group share it, so the engine tells a connection's group by its
 * host. Called on the engine's thread only.
 */
public interface ConnectionHost
{
    /**
     * Settings of the group, with the transport's per-datagram overhead taken from the MTU.
     *
     * @return the settings.
     */
    EngineSettings settings();

    /**
     * The group's packet I/O.
     *
     * @return the transport.
     */
    PacketTransport transport();

    /**
     * The group's outbound encoder, which counts every send.
     *
     * @return the proxy.
     */
    DatagramProxy proxy();

    /**
     * What is told of the group's streams and connections.
     *
     * @return the handler.
     */
    ConnectionHandler handler();

    /**
     * Where the group's receiver connections ask for the image of a stream.
     *
     * @return the admission.
     */
    ImageAdmission admission();

    /**
     * The streams the group's receiver connections carry, by stream key: within a group a stream and session is
     * carried by one connection at a time.
     *
     * @return the group's table, shared by its receiver connections.
     */
    Long2ObjectHashMap<ReceiverStream> streamsByKey();

    /**
     * The credit scheduler of the group's receiving link.
     *
     * @return the scheduler.
     */
    SharedCreditScheduler creditScheduler();

    /**
     * The per-plane totals the group's sender connections' paths add to.
     *
     * @return the counters, allocated on first use.
     */
    PlaneCounters planeCounters();

    /**
     * What the labels of the counters of the group's streams carry: the engine's and the group's labels.
     *
     * @return the label.
     */
    String connectionLabel();

    /**
     * What the label of each counter of one of the group's connections starts with.
     *
     * @param localId the connection's local id.
     * @return the label context.
     */
    String connectionCounterContext(int localId);

    /**
     * The engine's clock.
     *
     * @return the clock.
     */
    NanoClock clock();

    /**
     * When the datagram being handled was taken from its socket: the start of the read of its receive batch, which a
     * trigger's service time counts from (MR-ACK-4); the engine's current time outside a read.
     *
     * @return the time, on {@link #clock()}.
     */
    long readNs();

    /**
     * The engine's source of path permutations.
     *
     * @return the generator.
     */
    RandomGenerator random();

    /**
     * The engine's source of connection ids, epochs and initial PSNs.
     *
     * @return the generator.
     */
    RandomGenerator identityRandom();

    /**
     * What makes a sender connection's congestion controller.
     *
     * @return the engine's supplier.
     */
    SenderCongestionControlSupplier congestionControlSupplier();

    /**
     * What makes a sender connection's path policy.
     *
     * @return the engine's supplier.
     */
    SenderPathPolicySupplier pathPolicySupplier();

    /**
     * A received datagram is dropped for a reason: the engine counts it.
     *
     * @param reason a {@link DropReason}.
     */
    void drop(int reason);

    /**
     * A connection ended: the engine frees it at the end of its duty cycle.
     *
     * @param connection the connection.
     */
    void onTerminated(Connection connection);

    /**
     * An answer to a peer was held back because it would have been larger than the peer's proof of address allows.
     */
    void onAmplificationLimited();

    /**
     * A latency-class connection could not open its route to the receiver's latency queue (the transport could not
     * open its sockets): it goes on through the receive endpoint's port.
     */
    void onLatencyRouteFailed();

    /**
     * May an answer that refuses a peer go out now, within the limits on such answers per peer id and in total? A
     * refused one is counted.
     *
     * @param peerId the peer's connection id.
     * @param nowNs  the engine's clock.
     * @return true when the answer may go out.
     */
    boolean tryRejectReply(int peerId, long nowNs);

    /**
     * Most streams a receiver connection may keep.
     *
     * @return the bound per connection.
     */
    int maxStreamsPerConnection();

    /**
     * A receiver connection proved its peer's address: it no longer counts as unproved against its source host.
     *
     * @param connection the connection.
     */
    void onProved(ReceiverConnection connection);

    /**
     * May a receiver connection keep one more stream of a term length, within the bounds of the connection and its
     * source host?
     *
     * @param connection     the connection.
     * @param keptStreams    streams opening or open on the connection.
     * @param keptImageBytes image bytes those streams hold.
     * @param termLength     the new stream's term length.
     * @return 0 to admit, or the {@link DropReason} of the bound it would pass.
     */
    int admitStream(ReceiverConnection connection, int keptStreams, long keptImageBytes, int termLength);

    /**
     * A receiver connection keeps a stream: it counts against the connection's source host.
     *
     * @param connection the connection.
     * @param termLength the stream's term length.
     */
    void onStreamKept(ReceiverConnection connection, int termLength);

    /**
     * A receiver connection no longer keeps a stream.
     *
     * @param connection the connection.
     * @param termLength the stream's term length.
     */
    void onStreamReleased(ReceiverConnection connection, int termLength);
}
