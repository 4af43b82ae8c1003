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
package io.metaroce.datapath;

import io.metaroce.codec.wire.TrafficClass;
import io.metaroce.datapath.congestion.CongestionControl;
import io.metaroce.datapath.path.PathPolicy;
import io.metaroce.datapath.path.PathTable;
import io.metaroce.datapath.path.RoundRobinPathPolicy;
import io.metaroce.datapath.settings.Configuration;
import io.metaroce.datapath.settings.ConnectionSettings;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderCongestionControlSupplier;
import io.metaroce.datapath.settings.SenderPathPolicySupplier;
import io.metaroce.datapath.settings.SenderPolicies;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.stream.SenderStream;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A sender connection's {@link ConnectionSettings}: equal by value (engine settings too), the key by which streams
 * share a connection, and what the engine context's policy suppliers receive; the suppliers decide which names a
 * stream may give.
 */
class ConnectionSettingsTest
{
    private static final String MINE = "mine";

    private final WireFixture f = new WireFixture(2, (b) -> {});
    private final List<ConnectionSettings> routed = new ArrayList<>();
    private final ScriptedTransport transport = new ScriptedTransport(2, 4);
    private final int destination = transport.addDestination("receiver");
    private final TransportEngine engine = new TransportEngine(new TransportEngine.Context()
        .clock(f.clock)
        .random(new SplittableRandom(3))
        .transport(transport)
        .countersManager(new CountersManager(
            new UnsafeBuffer(ByteBuffer.allocateDirect(256 * 512)),
            new UnsafeBuffer(ByteBuffer.allocateDirect(256 * 128))))
        .connectionHandler(f)
        .imageAdmission(f)
        .settings(EngineSettings.builder().build())
        .congestionControlSupplier(new KnowsMineCongestionControl())
        .pathPolicySupplier(new RecordingPathPolicy()));

    @AfterEach
    void tearDown()
    {
        engine.close();
        f.engine.close();
    }

    private SenderStream open(final int sessionId, final SenderSettings settings)
    {
        return engine.openStream(settings.sessionId(sessionId), f.publication(WireFixture.STREAM_ID, sessionId, 1408));
    }

    private SenderSettings settings()
    {
        return f.senderSettings(WireFixture.STREAM_ID, 1, destination, 2, 2);
    }

    @Test
    void shouldBeEqualWhenEveryComponentIsEqual()
    {
        final EngineSettings engineSettings = EngineSettings.builder().build();
        final EngineSettings same = EngineSettings.builder().build();
        assertNotSame(engineSettings, same);
        assertEquals(engineSettings, same);
        assertEquals(engineSettings.hashCode(), same.hashCode());
        assertEquals(engineSettings, engineSettings.toBuilder().build());
        assertNotEquals(engineSettings, engineSettings.toBuilder().mtu(engineSettings.mtu() - 32).build());
        assertNotEquals(engineSettings, engineSettings.toBuilder().pathEviction(false).build());

        final ConnectionSettings connection =
            new ConnectionSettings(2, 4, TrafficClass.BULK, "aimd", "round-robin", false, engineSettings);
        final ConnectionSettings equal =
            new ConnectionSettings(2, 4, TrafficClass.BULK, "aimd", "round-robin", false, same);
        assertEquals(connection, equal);
        assertEquals(connection.hashCode(), equal.hashCode());
        assertEquals(connection.toString(), equal.toString());
        assertNotEquals(connection, new ConnectionSettings(1, 4, TrafficClass.BULK, "aimd", "round-robin", false,
            same));
        assertNotEquals(connection, new ConnectionSettings(2, 2, TrafficClass.BULK, "aimd", "round-robin", false,
            same));
        assertNotEquals(
            connection, new ConnectionSettings(2, 4, TrafficClass.LOW_LATENCY, "aimd", "round-robin", false, same));
        assertNotEquals(connection, new ConnectionSettings(2, 4, TrafficClass.BULK, null, "round-robin", false, same));
        assertNotEquals(connection, new ConnectionSettings(2, 4, TrafficClass.BULK, "aimd", "weighted", false, same));
        assertNotEquals(connection, new ConnectionSettings(2, 4, TrafficClass.BULK, "aimd", "round-robin", true, same));
        assertNotEquals(connection, new ConnectionSettings(2, 4, TrafficClass.BULK, "aimd", "round-robin", false,
            same.toBuilder().ccSlackNs(same.congestion().ccSlackNs() + 1).build()));
        final ConnectionSettings otherBurst = new ConnectionSettings(2, 4, TrafficClass.BULK, "aimd", "round-robin",
            false, same.toBuilder().pathBurst(8).build());
        assertNotEquals(connection, otherBurst);
        assertEquals(Configuration.PATH_BURST_DEFAULT, connection.pathBurst());
        assertEquals(8, otherBurst.pathBurst());
        assertThrows(IllegalArgumentException.class,
            () -> new ConnectionSettings(2, 0, TrafficClass.BULK, null, null, false, same));
    }

    @Test
    void shouldShareAConnectionWhenTheSettingsAreEqualAndNotOtherwise()
    {
        final SenderStream first = open(1, settings().engineSettings(EngineSettings.builder().build()));
        final SenderStream second = open(2, settings().engineSettings(EngineSettings.builder().build()));
        assertSame(first.connection(), second.connection(), "equal engine settings, not the same instance");
        assertEquals(1, routed.size());

        final SenderStream otherPolicy = open(3, settings().pathPolicy(MINE));
        final SenderStream otherSettings =
            open(4, settings().engineSettings(EngineSettings.builder().mtu(1280).build()));
        final SenderStream otherPaths = open(5, settings().pathsPerPlane(3));
        assertNotSame(first.connection(), otherPolicy.connection());
        assertNotSame(first.connection(), otherSettings.connection());
        assertNotSame(first.connection(), otherPaths.connection());
        assertEquals(4, engine.senderCount());
        assertEquals(4, routed.size());

        assertSame(otherPaths.connection(), open(6, settings().pathsPerPlane(3)).connection());
        assertSame(otherPolicy.connection(), open(7, settings().pathPolicy(MINE)).connection());
        assertEquals(4, engine.senderCount());

        final SenderStream otherBurst =
            open(8, settings().engineSettings(EngineSettings.builder().pathBurst(8).build()));
        assertNotSame(first.connection(), otherBurst.connection(), "another path burst, another connection");
        assertEquals(5, engine.senderCount());
    }

    @Test
    void shouldHandTheSuppliersWhatTheConnectionIsMadeOf()
    {
        open(1, settings().pathsPerPlane(16).pathCounters(true).trafficClass(TrafficClass.LOW_LATENCY)
            .congestionControl(MINE).pathPolicy(SenderPolicies.ROUND_ROBIN));

        final ConnectionSettings connection = routed.get(0);
        assertEquals(2, connection.planeCount());
        assertEquals(4, connection.pathsPerPlane(), "the transport's four entropy values cap the sixteen asked for");
        assertEquals(TrafficClass.LOW_LATENCY, connection.trafficClass());
        assertEquals(MINE, connection.congestionControl());
        assertEquals(SenderPolicies.ROUND_ROBIN, connection.pathPolicy());
        assertTrue(connection.pathCounters());
        assertEquals(engine.settings(), connection.engineSettings(), "the group's settings, overhead reserved");
    }

    @Test
    void shouldAcceptTheNamesTheSuppliersKnowAndRefuseOthers()
    {
        open(1, settings().congestionControl(MINE).pathPolicy(MINE));
        assertEquals(MINE, routed.get(0).pathPolicy());

        final IllegalArgumentException cc =
            assertThrows(IllegalArgumentException.class, () -> open(2, settings().congestionControl("cubic")));
        assertTrue(cc.getMessage().contains("congestionControl 'cubic'"), cc.getMessage());
        final IllegalArgumentException path =
            assertThrows(IllegalArgumentException.class, () -> open(3, settings().pathPolicy("random")));
        assertTrue(path.getMessage().contains("pathPolicy 'random'"), path.getMessage());
        assertEquals(1, engine.senderCount());
    }

    @Test
    void shouldDefaultToTheBuiltInSuppliers()
    {
        final TransportEngine.Context ctx = new TransportEngine.Context()
            .countersManager(new CountersManager(
                new UnsafeBuffer(ByteBuffer.allocateDirect(512)), new UnsafeBuffer(ByteBuffer.allocateDirect(128))))
            .settings(EngineSettings.builder().build())
            .conclude();
        assertSame(SenderPolicies.congestionControlSupplier(), ctx.congestionControlSupplier());
        assertSame(SenderPolicies.pathPolicySupplier(), ctx.pathPolicySupplier());
        assertTrue(ctx.congestionControlSupplier().knows(SenderPolicies.DELAY));
        assertTrue(ctx.congestionControlSupplier().knows(SenderPolicies.AIMD));
        assertTrue(ctx.pathPolicySupplier().knows(SenderPolicies.WEIGHTED));
        assertTrue(ctx.pathPolicySupplier().knows(SenderPolicies.ROUND_ROBIN));
        assertTrue(!ctx.congestionControlSupplier().knows(MINE) && !ctx.pathPolicySupplier().knows(MINE));
    }

    /**
     * Knows {@link #MINE} besides the built-in names, whose controllers it makes.
     */
    private static final class KnowsMineCongestionControl implements SenderCongestionControlSupplier
    {
        public boolean knows(final String name)
        {
            return MINE.equals(name) || SenderPolicies.congestionControlSupplier().knows(name);
        }

        public CongestionControl newInstance(
            final ConnectionSettings connection, final int mtu, final long initialWindow, final long maxWindow)
        {
            return SenderPolicies.congestionControlSupplier().newInstance(
                new ConnectionSettings(connection.planeCount(), connection.pathsPerPlane(), connection.trafficClass(),
                null, connection.pathPolicy(), connection.pathCounters(), connection.engineSettings()),
                mtu, initialWindow, maxWindow);
        }
    }

    /**
     * Records the settings of every connection, and makes round-robin policies for all of them.
     */
    private final class RecordingPathPolicy implements SenderPathPolicySupplier
    {
        public boolean knows(final String name)
        {
            return MINE.equals(name) || SenderPolicies.pathPolicySupplier().knows(name);
        }

        public PathPolicy newInstance(
            final ConnectionSettings connection, final PathTable paths, final RandomGenerator random)
        {
            routed.add(connection);
            return RoundRobinPathPolicy.supplier().newInstance(paths, random);
        }
    }
}
