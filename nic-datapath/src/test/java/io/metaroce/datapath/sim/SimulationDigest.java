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
package io.metaroce.datapath.sim;

import io.metaroce.codec.wire.MessageHeaderDecoder;
import io.metaroce.datapath.TransportEngine;
import io.metaroce.datapath.connection.SenderConnection;
import io.metaroce.datapath.counters.DropReason;
import io.metaroce.datapath.stream.SenderStream;
import io.metaroce.datapath.stream.TerminationCause;
import io.metaroce.datapath.tracking.LossReason;
import org.agrona.DirectBuffer;
import org.agrona.collections.Int2IntHashMap;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A record of everything observable and deterministic in the simulation, to prove that a refactoring changes no
 * behaviour: for seeds 1 to {@code -Dmetaroce.sim.digestSeeds} (default 60) it runs the scenarios of
 * {@link SimulationPropertyTest} (faults, reordering, healing) and two of {@link MultiStreamTransferTest} (a lossy
 * stream beside others, more streams than one send call looks at), each with the default policies, and records per
 * seed and scenario: a hash of every datagram each node sent (time, route and bytes) and of every delivery, the
 * datagrams sent per message type, the fabric's drops, the messages and bytes each subscriber checked (its
 * {@link MessageStream} checks content and order, so a count with no violation stands for the order), the final
 * virtual time and step count, each sender connection's retransmissions by reason and path counters, each
 * stream's positions and end, the engines' counters and the scenario's events.
 * <p>
 * Run {@code mvn -B -o -q -pl nic-datapath test -Dtest=SimulationDigest -Dmetaroce.sim.digest=<file>} before and after
 * a change (the before in a {@code git worktree} of the base commit) and compare the two files with {@code cmp};
 * without the property the test only runs the scenarios.
 */
class SimulationDigest
{
    private static final String DIGEST_FILE = System.getProperty("metaroce.sim.digest");
    private static final int SEEDS = Integer.getInteger("metaroce.sim.digestSeeds", 60);
    private static final long S = TimeUnit.SECONDS.toNanos(1);
    private static final int MANY_STREAMS = 300;

    @Test
    void shouldRecordEveryObservableOfEverySeed() throws IOException
    {
        final StringBuilder digest = new StringBuilder();
        for (long seed = 1; seed <= SEEDS; seed++)
        {
            faults(seed, digest);
            reorder(seed, digest);
            heal(seed, digest);
            lossyStream(seed, digest);
            manyStreams(seed, digest);
        }
        if (null != DIGEST_FILE)
        {
            Files.write(Path.of(DIGEST_FILE), digest.toString().getBytes(StandardCharsets.UTF_8));
        }
        assertTrue(digest.length() > 0);
    }

    private static void faults(final long seed, final StringBuilder digest)
    {
        final RandomScenario random = new RandomScenario(seed, true, true);
        final WireRecorder wire = new WireRecorder(random.scenario.fabric);
        final boolean done = random.scenario.run(120 * S);
        record("faults", seed, done, random.scenario, wire, digest);
    }

    private static void reorder(final long seed, final StringBuilder digest)
    {
        final RandomScenario random = new RandomScenario(seed, false, false, false, true);
        final WireRecorder wire = new WireRecorder(random.scenario.fabric);
        final boolean done = random.scenario.run(60 * S);
        record("reorder", seed, done, random.scenario, wire, digest);
    }

    private static void heal(final long seed, final StringBuilder digest)
    {
        final RandomScenario random = new RandomScenario(seed, true, false, true, false);
        final TransferScenario scenario = random.scenario;
        final WireRecorder wire = new WireRecorder(scenario.fabric);
        scenario.closeWhenDone = false;
        final boolean done = scenario.simulation.runUntil(scenario::isDelivered, scenario.clock.nanoTime() + 60 * S);
        scenario.simulation.runUntil(() -> false, Math.max(scenario.clock.nanoTime(), random.lastHealNs) + 10 * S);
        record("heal", seed, done, scenario, wire, digest);
    }

    private static void lossyStream(final long seed, final StringBuilder digest)
    {
        final MultiStreamScenario scenario = new MultiStreamScenario().seed(seed);
        scenario.streamCount = 4;
        scenario.watchedSession = 2;
        scenario.lossGenerator = new StreamDropFilter(2, 3, 5, 4, MultiStreamScenario.INITIAL_TERM_ID,
            scenario.termLength);
        scenario.build();
        final WireRecorder wire = new WireRecorder(scenario.fabric);
        final boolean done = scenario.run(30 * S);
        record("lossy-stream", seed, done, scenario, wire, digest);
    }

    private static void manyStreams(final long seed, final StringBuilder digest)
    {
        final MultiStreamScenario scenario = new MultiStreamScenario().seed(seed);
        scenario.streamCount = MANY_STREAMS;
        scenario.messageCount = 6;
        scenario.maxMessageLength = 700;
        scenario.build();
        final WireRecorder wire = new WireRecorder(scenario.fabric);
        final boolean done = scenario.run(60 * S);
        record("many-streams", seed, done, scenario, wire, digest);
    }

    private static void record(
        final String name,
        final long seed,
        final boolean done,
        final TransferScenario scenario,
        final WireRecorder wire,
        final StringBuilder digest)
    {
        header(name, seed, done, scenario.simulation, scenario.fabric, wire, digest);
        for (int i = 0; i < scenario.senderCount; i++)
        {
            digest.append("  sender ").append(i).append(" term=")
                .append(TerminationCause.name(scenario.senderTermination[i])).append(" completion=")
                .append(scenario.completionTimeNs[i]).append('\n');
            connection(scenario.connections[i], digest);
            stream(scenario.senderStreams[i], scenario.streams[i], digest);
            engine(scenario.senderEngines[i], digest);
        }
        engine(scenario.receiverEngine, digest);
        digest.append("  receiver endOfStreams=").append(scenario.endOfStreams).append(" terminations=")
            .append(scenario.receiverTerminations).append(" checked=")
            .append(scenario.checker.datagramsChecked()).append('\n');
        events(scenario.events.toArray(new String[0]), digest);
    }

    private static void record(
        final String name,
        final long seed,
        final boolean done,
        final MultiStreamScenario scenario,
        final WireRecorder wire,
        final StringBuilder digest)
    {
        header(name, seed, done, scenario.simulation, scenario.fabric, wire, digest);
        connection(scenario.senderStreams[0].connection(), digest);
        for (int i = 0; i < scenario.streamCount; i++)
        {
            digest.append("  session ").append(i + 1).append(" term=")
                .append(TerminationCause.name(scenario.senderTermination[i])).append(" acknowledged=")
                .append(scenario.acknowledged[i]).append('\n');
            stream(scenario.senderStreams[i], scenario.streams[i], digest);
        }
        digest.append("  watched acknowledged=").append(Arrays.toString(scenario.acknowledgedAtWatchedFirstAck))
            .append(" delivered=").append(Arrays.toString(scenario.deliveredAtWatchedFirstAck)).append('\n');
        engine(scenario.senderEngine, digest);
        engine(scenario.receiverEngine, digest);
        digest.append("  checked=").append(scenario.checker.datagramsChecked()).append('\n');
        events(scenario.events.toArray(new String[0]), digest);
    }

    private static void header(
        final String name,
        final long seed,
        final boolean done,
        final Simulation simulation,
        final SimulatedFabric fabric,
        final WireRecorder wire,
        final StringBuilder digest)
    {
        digest.append(name).append(" seed=").append(seed).append(" done=").append(done)
            .append(" t=").append(simulation.clock().nanoTime()).append(" steps=").append(simulation.steps())
            .append(" stalled=").append(simulation.isStalled()).append('\n');
        digest.append("  fabric sent=").append(fabric.sent()).append(" delivered=").append(fabric.delivered())
            .append(" duplicated=").append(fabric.duplicated()).append(" drops=").append(fabric.drops())
            .append(" byReason=[");
        for (int reason = 0; reason < SimulatedFabric.DROP_REASONS; reason++)
        {
            digest.append(reason > 0 ? "," : "").append(fabric.drops(reason));
        }
        digest.append("]\n");
        wire.appendTo(digest);
    }

    private static void connection(final SenderConnection connection, final StringBuilder digest)
    {
        digest.append("  connection state=").append(connection.state()).append(" term=")
            .append(TerminationCause.name(connection.terminationCause())).append(" data=")
            .append(connection.dataPacketsSent()).append(" retx=").append(connection.retransmits())
            .append(" spurious=").append(connection.spuriousRetransmits()).append(" byReason=[");
        for (int reason = 0; reason < LossReason.COUNT; reason++)
        {
            digest.append(reason > 0 ? "," : "").append(LossReason.name(reason)).append('=')
                .append(connection.retransmits(reason));
        }
        digest.append("] srtt=").append(connection.srttNs()).append(" baseRtt=").append(connection.baseRttNs())
            .append(" rto=").append(connection.retransmissionTimeoutNs()).append(" cwnd=")
            .append(connection.congestionWindow()).append(" grant=").append(connection.grantLimit())
            .append(" sent=").append(connection.sentBytes()).append(" inflight=").append(connection.inflightBytes())
            .append(" streams=").append(connection.streamCount()).append('\n');
        digest.append("  paths");
        for (int path = 0; path < connection.pathCount(); path++)
        {
            digest.append(' ').append(connection.pathState(path)).append('/').append(connection.pathPackets(path))
                .append('/').append(connection.lossesCharged(path));
        }
        digest.append('\n');
    }

    private static void stream(final SenderStream stream, final MessageStream messages, final StringBuilder digest)
    {
        digest.append("    stream state=").append(stream.state()).append(" term=")
            .append(TerminationCause.name(stream.terminationCause())).append(" ref=").append(stream.streamRef())
            .append(" acked=").append(stream.acknowledgedPosition()).append(" pos=").append(stream.senderPosition())
            .append(" window=").append(stream.windowLimit()).append(" refusal=").append(stream.refusalCode())
            .append(" delivered=").append(messages.messagesChecked()).append(" bytes=")
            .append(messages.bytesChecked()).append(" eos=").append(messages.isEndOfStream()).append(" violation=")
            .append(messages.violation()).append('\n');
    }

    private static void engine(final TransportEngine engine, final StringBuilder digest)
    {
        digest.append("  engine received=").append(engine.datagramsReceived()).append(" sent=")
            .append(engine.datagramsSent()).append(" failures=").append(engine.sendFailures()).append(" drops=[");
        for (int reason = 0; reason < DropReason.COUNT; reason++)
        {
            digest.append(reason > 0 ? "," : "").append(engine.drops(reason));
        }
        digest.append("]\n");
        final StringBuilder counters = new StringBuilder();
        engine.context().countersManager().forEach((counterId, typeId, keyBuffer, label) ->
            counters.append("    counter ").append(counterId).append(' ').append(typeId).append(' ').append(label)
                .append(" = ").append(engine.context().countersManager().getCounterValue(counterId)).append('\n'));
        digest.append(counters);
    }

    private static void events(final String[] events, final StringBuilder digest)
    {
        for (final String event : events)
        {
            digest.append("  event ").append(event).append('\n');
        }
    }

    /**
     * Hashes every datagram each node hands to the fabric and every delivery, and counts the datagrams of each type.
     */
    private static final class WireRecorder implements PacketObserver
    {
        private static final int TEMPLATE_OFFSET = MessageHeaderDecoder.templateIdEncodingOffset();

        private final Int2IntHashMap sentByType = new Int2IntHashMap(0);
        private long sentHash;
        private long deliveredHash;
        private long drops;

        WireRecorder(final SimulatedFabric fabric)
        {
            fabric.addObserver(this);
        }

        public void onSend(
            final long nowNs,
            final int srcNode,
            final int dstNode,
            final int plane,
            final int entropy,
            final DirectBuffer buffer,
            final int offset,
            final int length)
        {
            final int type = buffer.getShort(offset + TEMPLATE_OFFSET, ByteOrder.LITTLE_ENDIAN) & 0xFFFF;
            final int key = (srcNode << 16) | type;
            sentByType.put(key, sentByType.get(key) + 1);
            long hash = mix(sentHash ^ nowNs);
            hash = mix(hash ^ (((long)srcNode << 48) | ((long)dstNode << 32) | ((long)plane << 16) | entropy));
            sentHash = bytes(hash, buffer, offset, length);
        }

        public void onDrop(final long nowNs, final int srcNode, final int dstNode, final int plane, final int reason)
        {
            drops++;
        }

        public void onDeliver(
            final long nowNs,
            final int srcNode,
            final int dstNode,
            final int plane,
            final DirectBuffer buffer,
            final int offset,
            final int length)
        {
            long hash = mix(deliveredHash ^ nowNs);
            hash = mix(hash ^ (((long)srcNode << 48) | ((long)dstNode << 32) | plane));
            deliveredHash = bytes(hash, buffer, offset, length);
        }

        void appendTo(final StringBuilder digest)
        {
            digest.append("  wire sentHash=").append(Long.toHexString(sentHash)).append(" deliveredHash=")
                .append(Long.toHexString(deliveredHash)).append(" drops=").append(drops).append(" byNodeAndType=");
            final int[] keys = new int[sentByType.size()];
            int count = 0;
            final Int2IntHashMap.KeyIterator iterator = sentByType.keySet().iterator();
            while (iterator.hasNext())
            {
                keys[count++] = iterator.nextValue();
            }
            Arrays.sort(keys);
            for (final int key : keys)
            {
                digest.append(' ').append(key >>> 16).append(':').append(key & 0xFFFF).append('=')
                    .append(sentByType.get(key));
            }
            digest.append('\n');
        }

        private static long bytes(final long seed, final DirectBuffer buffer, final int offset, final int length)
        {
            long hash = mix(seed ^ length);
            int i = 0;
            for (; i + 8 <= length; i += 8)
            {
                hash = mix(hash ^ buffer.getLong(offset + i, ByteOrder.LITTLE_ENDIAN));
            }
            for (; i < length; i++)
            {
                hash = mix(hash ^ buffer.getByte(offset + i));
            }
            return hash;
        }

        private static long mix(final long value)
        {
            return MessageStream.mix(value);
        }
    }
}
