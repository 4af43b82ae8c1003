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
package io.metaroce.datapath.stream;

/**
 * Events of the streams an engine carries, delivered on the thread that drives the engine, from inside its
 * {@code doWork}-style calls. The driver implements it: the acknowledged position moves a publication's limit, the
 * opening and the end of a stream change what its clients see. Connections carry streams and have no events of their
 * own here: a connection that fails ends each of its streams with the connection's cause. A handler must not call
 * back into the engine except to read state.
 */
public interface ConnectionHandler
{
    /**
     * The receiver accepted a stream's STREAM_OPEN: DATA of the stream may flow.
     *
     * @param stream the sender stream.
     */
    void onSenderEstablished(SenderStream stream);

    /**
     * The receiver acknowledged a stream up to a position: every byte before it was received and placed. The
     * publisher limit follows it; bytes before it will never be read again.
     *
     * @param stream   the sender stream.
     * @param position the new acknowledged position.
     */
    void onSenderAcknowledged(SenderStream stream, long position);

    /**
     * A sender stream ended; its state is freed.
     *
     * @param stream the sender stream.
     * @param cause  a {@link TerminationCause}: NORMAL or CLOSE_UNANSWERED after a close; any other code means the
     *               stream, or its whole connection, FAILED and the publication should open it again.
     */
    void onSenderTerminated(SenderStream stream, int cause);

    /**
     * A receiver stream received the sender's STREAM_CLOSE: its image reached the end of the stream.
     *
     * @param stream        the receiver stream.
     * @param finalPosition stream position after the last byte.
     */
    void onReceiverEndOfStream(ReceiverStream stream, long finalPosition);

    /**
     * A receiver stream ended (closed, or its connection ended); the engine never places into its image again and
     * the image can be released.
     *
     * @param stream the receiver stream.
     * @param cause  a {@link TerminationCause}.
     */
    void onReceiverTerminated(ReceiverStream stream, int cause);
}
