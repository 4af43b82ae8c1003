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
package io.metaroce.systemtest.compliance;

import io.metaroce.codec.FrameDescriptor;
import io.metaroce.codec.wire.AckDecoder;
import io.metaroce.codec.wire.SetupAckDecoder;
import io.metaroce.codec.wire.TrafficClass;

import java.util.function.Predicate;

/**
 * The raw peer playing the sender of a connection towards the target's receiver: it opens the connection with SETUP
 * on every plane and crafts DATA with one 64-byte frame (32 bytes of message) per PSN, so that PSN {@code isn + k}
 * carries stream position {@code start + 64 k}. Path {@code p} is plane {@code p % planes}; pathSeq counts per path.
 */
final class RawSender
{
    static final int MESSAGE_LENGTH = 32;
    static final int FRAME_LENGTH = FrameDescriptor.HEADER_LENGTH + MESSAGE_LENGTH;

    final RawPeer peer;
    final WireWriter.SetupParameters setup = new WireWriter.SetupParameters();
    final int planes;
    final int[] pathSeq = new int[16];
    int localId;
    int peerId;
    int isn;
    Datagram setupAck;

    RawSender(final RawPeer peer, final int streamId, final int sessionId, final int localId, final int isn)
    {
        this.peer = peer;
        this.planes = peer.addresses().length;
        this.localId = localId;
        this.isn = isn;
        setup.streamId = streamId;
        setup.sessionId = sessionId;
        setup.replyPort = peer.port();
        setup.planeCount = planes;
        setup.pathCount = planes;
    }

    HeaderFields setupHeader(final int plane)
    {
        return HeaderFields.ids(0, localId).plane(plane).psn(isn);
    }

    int sendSetup(final int plane)
    {
        final int length = peer.out.setup(setupHeader(plane), setup);
        peer.send(plane, length);
        return length;
    }

    /**
     * SETUP on every plane, retried as a sender retries it (MR-CONN-1), then the SETUP_ACK that answers the first one
     * answered.
     */
    Datagram establish()
    {
        final Predicate<Datagram> answer =
            (d) -> d.is(SetupAckDecoder.TEMPLATE_ID) && d.dstConnId() == localId && d.psn() == isn;
        setupAck = peer.awaitRetrying(this::sendSetupOnEveryPlane, answer, "SETUP_ACK");
        peerId = setupAck.srcConnId();
        // Every plane's SETUP is answered, but one that reached the target before its image was ready went
        // unanswered (MR-SETUP-6 lets the receiver stay silent): ask again on that plane, soon enough that a short
        // connection timeout of the test does not expire meanwhile.
        final boolean[] answered = new boolean[planes];
        answered[setupAck.plane] = true;
        for (int plane = 0; plane < planes; plane++)
        {
            final int p = plane;
            for (int attempt = 0; !answered[p] && attempt < 40; attempt++)
            {
                if (null != peer.poll((d) -> answer.test(d) && d.plane == p, 25))
                {
                    answered[p] = true;
                }
                else
                {
                    sendSetup(p);
                }
            }
        }
        // A retry sent just before the first answer arrived is answered too (MR-ID-12): take those answers away.
        Datagram late = setupAck;
        while (null != late)
        {
            late = peer.poll(answer, 50);
        }
        return setupAck;
    }

    private void sendSetupOnEveryPlane()
    {
        for (int plane = 0; plane < planes; plane++)
        {
            sendSetup(plane);
        }
    }

    HeaderFields header(final int plane)
    {
        return HeaderFields.ids(peerId, localId).plane(plane);
    }

    long position(final int psn)
    {
        return setup.startPosition() + ((psn - isn) & 0xFFFF_FFFFL) * FRAME_LENGTH;
    }

    int termId(final long position)
    {
        return setup.initialTermId + (int)(position / setup.termLength);
    }

    int termOffset(final long position)
    {
        return (int)(position % setup.termLength);
    }

    static byte[] message(final int psn)
    {
        final byte[] message = new byte[MESSAGE_LENGTH];
        for (int i = 0; i < MESSAGE_LENGTH; i++)
        {
            message[i] = (byte)(psn + i);
        }
        return message;
    }

    /**
     * Encode the DATA of a PSN, one whole message, on a path, with extra header flags.
     */
    int encodeData(final int psn, final int flags, final int path)
    {
        return encodeData(psn, flags, path, FrameDescriptor.UNFRAGMENTED);
    }

    int encodeData(final int psn, final int flags, final int path, final int frameFlags)
    {
        final long position = position(psn);
        final int termId = termId(position);
        final int termOffset = termOffset(position);
        final byte[] frame = WireWriter.frame(
            setup.streamId, setup.sessionId, termId, termOffset, frameFlags, message(psn));
        int headerFlags = flags;
        headerFlags |= 0 != (frameFlags & FrameDescriptor.BEGIN_FLAG) ? Flags.FIRST_OF_MESSAGE : 0;
        headerFlags |= 0 != (frameFlags & FrameDescriptor.END_FLAG) ? Flags.LAST_OF_MESSAGE : 0;
        final int plane = path % planes;
        final HeaderFields fields = header(plane).flags(headerFlags).trafficClass(TrafficClass.BULK)
            .path(path, pathSeq[path]++).psn(psn);
        return peer.out.data(fields, setup.streamId, setup.sessionId, termId, termOffset, frame);
    }

    /**
     * Send the DATA of a PSN on a path; returns the pathSeq it carried.
     */
    int data(final int psn, final int flags, final int path)
    {
        final int length = encodeData(psn, flags, path);
        peer.send(path % planes, length);
        return pathSeq[path] - 1;
    }

    /**
     * Send the DATA of a PSN with ackRequest on path 0 and wait for the ACK that echoes it.
     */
    Datagram dataAndAck(final int psn)
    {
        final int seq = data(psn, Flags.ACK_REQUEST, 0);
        return peer.await(ackEchoing(0, seq), "ACK for PSN " + psn);
    }

    static Predicate<Datagram> ackEchoing(final int path, final int seq)
    {
        return (d) -> d.is(AckDecoder.TEMPLATE_ID) && d.pathId() == path && d.pathSeq() == (seq & 0xFFFF);
    }
}
