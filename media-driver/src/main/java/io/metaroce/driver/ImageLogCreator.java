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
package io.metaroce.driver;

import io.metaroce.client.logbuffer.HeaderWriter;
import io.metaroce.client.logbuffer.LogBufferDescriptor;
import io.metaroce.codec.FrameDescriptor;
import io.metaroce.driver.buffer.LogFactory;
import io.metaroce.driver.buffer.RawLog;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.status.AtomicCounter;

import java.util.ArrayDeque;
import java.util.ArrayList;

/**
 * The conductor's creation of image logs for the receive endpoints ({@link PendingImage}): one log at a time, in the
 * order requested, zero-filled {@link Configuration#IMAGE_LOG_FILL_CHUNK_LENGTH} bytes per conductor duty cycle, so
 * that neither the receiver agent (whose other streams keep flowing) nor the conductor's own work (client
 * commands, positions, cleaning, timers) waits for a large log. A mapped log, its metadata written, goes back to its
 * endpoint through the receiver's command queue; one that cannot be created (a {@code StorageSpaceException}: the
 * space is checked, as for every log, against the logs created before it) is logged to the distinct error log and
 * answered as failed, and the endpoint refuses the stream's opening as it refuses an unknown stream.
 * <p>
 * A log stays in this creator's list of logs in transit from its mapping until a stream takes it (the conductor
 * then owns it as a {@link NetworkImage}) or the endpoint returns it, so a log is freed exactly once, at the latest
 * when the driver closes. Conductor thread only.
 */
final class ImageLogCreator implements AutoCloseable
{
    private final LogFactory logFactory;
    private final TransportCommandQueue receiverCommands;
    private final ErrorHandler errorHandler;
    private final AtomicCounter bytesMapped;
    private final int filePageSize;
    private final int fillChunkLength;
    private final UnsafeBuffer defaultHeader = new UnsafeBuffer(new byte[FrameDescriptor.HEADER_LENGTH]);
    private final ArrayDeque<PendingImage> requests = new ArrayDeque<>();
    private final ArrayList<PendingImage> inTransit = new ArrayList<>();

    ImageLogCreator(
        final LogFactory logFactory,
        final TransportCommandQueue receiverCommands,
        final ErrorHandler errorHandler,
        final AtomicCounter bytesMapped,
        final int filePageSize,
        final int fillChunkLength)
    {
        this.logFactory = logFactory;
        this.receiverCommands = receiverCommands;
        this.errorHandler = errorHandler;
        this.bytesMapped = bytesMapped;
        this.filePageSize = filePageSize;
        this.fillChunkLength = fillChunkLength;
    }

    /**
     * Agent event: a receive endpoint asks for an image log.
     */
    void onRequest(final PendingImage request)
    {
        requests.addLast(request);
    }

    /**
     * Agent event: an endpoint returns a log that no connection took.
     */
    void onReturned(final PendingImage request)
    {
        if (inTransit.remove(request))
        {
            free(request);
        }
    }

    /**
     * Agent event: a connection took the log; its {@link NetworkImage} owns it from now on.
     */
    void onTaken(final PendingImage request)
    {
        inTransit.remove(request);
    }

    /**
     * Logs requested and not yet answered, the one being created included.
     *
     * @return the count.
     */
    int requestCount()
    {
        return requests.size();
    }

    /**
     * Logs mapped and taken by no connection yet.
     *
     * @return the count.
     */
    int inTransitCount()
    {
        return inTransit.size();
    }

    /**
     * Conductor duty cycle: one step of the oldest request (a chunk of its file, or its mapping and answer).
     *
     * @return work done.
     */
    int doWork()
    {
        final PendingImage request = requests.peekFirst();
        if (null == request)
        {
            return 0;
        }

        if (request.isCancelled())
        {
            requests.pollFirst();
            if (null != request.allocation())
            {
                request.allocation().abort();
            }
            return 1;
        }

        if (receiverCommands.size() >= TransportCommandQueue.CAPACITY - 4)
        {
            return 0; // the answer must fit the queue, whose only producer is this thread
        }

        final RawLog rawLog;
        try
        {
            if (null == request.allocation())
            {
                request.allocation(
                    logFactory.beginImage(request.correlationId(), request.termLength(), request.isSparse()));
            }
            if (!request.allocation().fill(fillChunkLength))
            {
                return 1;
            }
            rawLog = map(request);
        }
        catch (final RuntimeException ex)
        {
            requests.pollFirst();
            if (null != request.allocation())
            {
                request.allocation().close();
            }
            errorHandler.onError(new IllegalStateException("no image for stream " + request.streamId() +
                " session " + request.sessionId() + " on " + request.endpoint().channel().canonicalForm() +
                ": cannot create its log", ex));
            answer(request, () -> request.endpoint().onImageLogFailed(request));
            return 1;
        }

        requests.pollFirst();
        request.rawLog(rawLog);
        bytesMapped.getAndAddRelease(rawLog.logLength());
        inTransit.add(request);
        if (!answer(request, () -> request.endpoint().onImageLogCreated(request)))
        {
            inTransit.remove(request);
            free(request);
        }

        return 1;
    }

    /**
     * Free every log this creator still holds: the one being created, those queued and those in transit. Once the
     * agents have stopped and the endpoints have returned what they held.
     */
    public void close()
    {
        for (final PendingImage request : requests)
        {
            if (null != request.allocation())
            {
                request.allocation().abort();
            }
        }
        requests.clear();
        for (final PendingImage request : inTransit)
        {
            free(request);
        }
        inTransit.clear();
    }

    private RawLog map(final PendingImage request)
    {
        final RawLog rawLog = request.allocation().map();
        try
        {
            HeaderWriter.writeDefaultHeader(defaultHeader, request.sessionId(), request.streamId());
            LogBufferDescriptor.initialiseMetaData(
                rawLog.metaDataBuffer(),
                request.correlationId(),
                request.initialTermId(),
                (request.mtu() - UdpChannel.DATA_HEADER_LENGTH) & ~(FrameDescriptor.FRAME_ALIGNMENT - 1),
                request.termLength(),
                filePageSize,
                request.windowLength(),
                defaultHeader);
        }
        catch (final RuntimeException ex)
        {
            rawLog.free();
            throw ex;
        }

        return rawLog;
    }

    private boolean answer(final PendingImage request, final Runnable command)
    {
        if (receiverCommands.offer(command))
        {
            return true;
        }

        errorHandler.onError(new IllegalStateException("receiver command queue full: image log of stream " +
            request.streamId() + " session " + request.sessionId() + " dropped"));
        return false;
    }

    private void free(final PendingImage request)
    {
        final RawLog rawLog = request.rawLog();
        bytesMapped.getAndAddRelease(-rawLog.logLength());
        rawLog.free();
    }
}
