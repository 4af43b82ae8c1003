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

/**
 * Events of an engine's connections, delivered on the thread that drives the engine, from inside its
 * {@code doWork}-style calls. The driver implements it: the acknowledged position moves a publication's limit,
 * establishment and termination change what its clients see. A handler must not call back into the engine except
 * to read connection state.
 */
public interface ConnectionHandler
{
    /**
     * A sender's SETUP was accepted: DATA may flow.
     *
     * @param connection the sender connection.
     */
    void onSenderEstablished(SenderConnection connection);

    /**
     * The receiver acknowledged the stream up to a position: every byte before it was received and placed. The
     * publisher limit follows it; bytes before it will never be read again.
     *
     * @param connection the sender connection.
     * @param position   the new acknowledged position.
     */
    void onSenderAcknowledged(SenderConnection connection, long position);

    /**
     * A sender connection ended; its state is freed.
     *
     * @param connection the sender connection.
     * @param cause      a {@link TerminationCause}: NORMAL or CLOSE_UNANSWERED after a close, any other code means
     *                   the connection FAILED and the publication should start a new incarnation.
     */
    void onSenderTerminated(SenderConnection connection, int cause);

    /**
     * A receiver connection received the sender's CLOSE with every PSN before the final one: its image reached the
     * end of the stream.
     *
     * @param connection    the receiver connection.
     * @param finalPosition stream position after the last byte.
     */
    void onReceiverEndOfStream(ReceiverConnection connection, long finalPosition);

    /**
     * A receiver connection ended; its state is freed and its image can be released.
     *
     * @param connection the receiver connection.
     * @param cause      a {@link TerminationCause}.
     */
    void onReceiverTerminated(ReceiverConnection connection, int cause);
}
