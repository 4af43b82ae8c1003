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

import io.metaroce.codec.wire.ConnectionState;
import io.metaroce.datapath.io.PacketTransport;
import io.metaroce.datapath.io.PacketTransportFactory;
import io.metaroce.datapath.security.AuthSettings;
import io.metaroce.datapath.settings.EngineSettings;
import io.metaroce.datapath.settings.SenderSettings;
import io.metaroce.datapath.sim.SimulatedImage;
import io.metaroce.datapath.sim.SimulatedPublication;
import io.metaroce.datapath.stream.ConnectionHandler;
import io.metaroce.datapath.stream.FramePlacement;
import io.metaroce.datapath.stream.ImageAdmission;
import io.metaroce.datapath.stream.ReceiverStream;
import io.metaroce.datapath.stream.SenderStream;
import org.agrona.concurrent.status.CountersManager;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code snd-connect-ns} between two engines over real UDP sockets on the loopback planes 127.0.0.1 and 127.0.0.2,
 * both engines run by the test thread with a backoff idle strategy and the system's clock: it is set, and positive,
 * for an unauthenticated connection and for an authenticated, encrypted one (a fresh pair of engines each, then a
 * second pair once the JVM has run X25519 and AES-GCM). The values are printed, and only bounded by a sanity limit:
 * the handshake's cost is measured by the rig, not by a test.
 */
class ConnectTimeLoopbackTest implements ConnectionHandler, ImageAdmission
{
    private static final int PLANES = 2;
    private static final int STREAM_ID = 77;
    private static final int SESSION_ID = 5;
    private static final int TERM_LENGTH = 64 * 1024;
    private static final int MTU = 1408;
    private static final long SANITY_BOUND_NS = TimeUnit.SECONDS.toNanos(1);

    private final LoopbackEngines loopback = new LoopbackEngines(PLANES, TimeUnit.MICROSECONDS.toNanos(100));
    private final SecureRandom random = new SecureRandom();

    @AfterEach
    void close()
    {
        loopback.close();
    }

    @Test
    void shouldSetTheConnectTimeOfPlainAndAuthenticatedConnections() throws IOException
    {
        final long plainCold = connectNs(false);
        final long authenticatedCold = connectNs(true);
        final long plainWarm = connectNs(false);
        final long authenticatedWarm = connectNs(true);

        System.out.printf("snd-connect-ns on loopback, two engines on one thread: unauthenticated %.3f ms (then " +
            "%.3f ms), authenticated and encrypted %.3f ms with the JVM's first X25519 and AES-GCM (then %.3f ms)%n",
            plainCold / 1e6, plainWarm / 1e6, authenticatedCold / 1e6, authenticatedWarm / 1e6);
        for (final long value : new long[]{ plainCold, authenticatedCold, plainWarm, authenticatedWarm })
        {
            assertTrue(value > 0 && value < SANITY_BOUND_NS, "set and positive, below 1 s: " + value);
        }
    }

    /**
     * A fresh pair of engines, a stream opened towards the receiver: the sender connection's {@code snd-connect-ns}
     * once ESTABLISHED.
     */
    private long connectNs(final boolean authenticate) throws IOException
    {
        final LoopbackEngines.TrustingPair keys = LoopbackEngines.trustingPair(random);
        final PacketTransport senderTransport = transport();
        final PacketTransport receiverTransport = transport();
        final EngineSettings settings = EngineSettings.builder().mtu(MTU).pathsPerPlane(2).build();
        final TransportEngine sender = engine(senderTransport, settings, authenticate ? keys.sender() : null);
        final TransportEngine receiver = engine(receiverTransport, settings, authenticate ? keys.receiver() : null);

        final SimulatedPublication publication =
            new SimulatedPublication(STREAM_ID, SESSION_ID, 0, TERM_LENGTH, 0, MTU, TERM_LENGTH / 2);
        final SenderSettings streamSettings = new SenderSettings().streamId(STREAM_ID).sessionId(SESSION_ID)
            .initialTermId(0).activeTermId(0).termOffset(0).termLength(TERM_LENGTH).planeCount(PLANES)
            .pathsPerPlane(2).destination(senderTransport.addDestination(loopback.addresses(receiverTransport)));
        if (authenticate)
        {
            streamSettings.peerKey(keys.receiverPublic()).encrypt(true);
        }
        final SenderStream stream = sender.openStream(streamSettings, publication);

        loopback.awaitTrue(() -> ConnectionState.ESTABLISHED == stream.connection().state(),
            "the connection established", sender, receiver);
        assertEquals(authenticate, stream.connection().isAuthenticated());

        final CountersManager counters = sender.context().countersManager();
        final long[] value = { -1 };
        counters.forEach((counterId, typeId, keyBuffer, label) ->
        {
            if (label.startsWith("snd-connect-ns: "))
            {
                value[0] = counters.getCounterValue(counterId);
            }
        });

        return value[0];
    }

    private PacketTransport transport() throws IOException
    {
        return loopback.add(PacketTransportFactory.udp().open(loopback.spec().entropyCount(2)));
    }

    private TransportEngine engine(
        final PacketTransport transport, final EngineSettings settings, final AuthSettings authSettings)
    {
        return loopback.engine(new TransportEngine.Context()
            .transport(transport)
            .connectionHandler(this)
            .imageAdmission(this)
            .authSettings(authSettings)
            .settings(settings));
    }

    public FramePlacement onImageRequest(
        final int streamId,
        final int sessionId,
        final int initialTermId,
        final int activeTermId,
        final int termOffset,
        final int termLength,
        final int mtu,
        final InetSocketAddress source)
    {
        return new SimulatedImage(initialTermId, termLength, 0, termLength / 2);
    }

    public void onSenderEstablished(final SenderStream stream)
    {
    }

    public void onSenderAcknowledged(final SenderStream stream, final long position)
    {
    }

    public void onSenderTerminated(final SenderStream stream, final int cause)
    {
    }

    public void onReceiverEndOfStream(final ReceiverStream stream, final long finalPosition)
    {
    }

    public void onReceiverTerminated(final ReceiverStream stream, final int cause)
    {
    }
}
