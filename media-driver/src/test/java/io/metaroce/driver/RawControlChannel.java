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

import io.metaroce.client.cnc.CncFile;
import io.metaroce.codec.ControlMessageReader;
import io.metaroce.codec.control.ErrorDecoder;
import io.metaroce.codec.control.OperationSuccessDecoder;
import org.agrona.DirectBuffer;
import org.agrona.concurrent.UnsafeBuffer;
import org.agrona.concurrent.broadcast.BroadcastReceiver;
import org.agrona.concurrent.broadcast.CopyBroadcastReceiver;
import org.agrona.concurrent.ringbuffer.ManyToOneRingBuffer;
import org.agrona.concurrent.status.CountersReader;

import java.io.File;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Talks to a driver the way a buggy or hostile client could: writes raw records into the CnC to-driver ring and
 * watches the broadcast for the answers, validating them with the {@link ControlMessageReader}.
 */
final class RawControlChannel implements AutoCloseable
{
    private final CncFile cncFile;
    private final ManyToOneRingBuffer ring;
    private final CopyBroadcastReceiver receiver;
    private final ControlMessageReader reader = new ControlMessageReader();
    private final CountersReader countersReader;

    RawControlChannel(final String directoryName)
    {
        cncFile = CncFile.mapExisting(new File(directoryName), false);
        ring = new ManyToOneRingBuffer(cncFile.toDriverBuffer());
        receiver = new CopyBroadcastReceiver(new BroadcastReceiver(cncFile.toClientsBuffer()));
        countersReader = cncFile.newCountersReader();
    }

    long nextCorrelationId()
    {
        return ring.nextCorrelationId();
    }

    boolean write(final int msgTypeId, final DirectBuffer buffer, final int offset, final int length)
    {
        return ring.write(msgTypeId, buffer, offset, length);
    }

    ManyToOneRingBuffer ring()
    {
        return ring;
    }

    CountersReader countersReader()
    {
        return countersReader;
    }

    /**
     * Wait for the answer to a correlation id.
     *
     * @return "ERROR CODE: message" or "SUCCESS"; null on timeout.
     */
    String awaitAnswer(final long correlationId, final long timeoutMs)
    {
        final String[] answer = new String[1];
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (null == answer[0] && System.nanoTime() < deadlineNs)
        {
            final int received = receiver.receive((msgTypeId, buffer, index, length) ->
            {
                final int templateId = reader.read(buffer, index, length);
                if (ErrorDecoder.TEMPLATE_ID == templateId &&
                    reader.error().offendingCorrelationId() == correlationId)
                {
                    answer[0] = "ERROR " + reader.error().code() + ": " + reader.error().message();
                }
                else if (OperationSuccessDecoder.TEMPLATE_ID == templateId &&
                    reader.operationSuccess().correlationId() == correlationId)
                {
                    answer[0] = "SUCCESS";
                }
            });
            if (0 == received)
            {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
            }
        }

        return answer[0];
    }

    /**
     * Collect every answer seen until the answer to a marker command arrives.
     *
     * @return answers by correlation id, the marker's included; empty if the marker was not answered in time.
     */
    java.util.Map<Long, String> answersUntil(final long markerCorrelationId, final long timeoutMs)
    {
        final java.util.Map<Long, String> answers = new java.util.HashMap<>();
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!answers.containsKey(markerCorrelationId) && System.nanoTime() < deadlineNs)
        {
            final int received = receiver.receive((msgTypeId, buffer, index, length) ->
            {
                final int templateId = reader.read(buffer, index, length);
                if (ErrorDecoder.TEMPLATE_ID == templateId)
                {
                    answers.put(reader.error().offendingCorrelationId(),
                        "ERROR " + reader.error().code() + ": " + reader.error().message());
                }
                else if (OperationSuccessDecoder.TEMPLATE_ID == templateId)
                {
                    answers.put(reader.operationSuccess().correlationId(), "SUCCESS");
                }
            });
            if (0 == received)
            {
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(100));
            }
        }

        return answers;
    }

    long counterValue(final String label)
    {
        final long[] value = { -1 };
        countersReader.forEach((counterId, typeId, keyBuffer, counterLabel) ->
        {
            if (counterLabel.equals(label))
            {
                value[0] = countersReader.getCounterValue(counterId);
            }
        });
        return value[0];
    }

    UnsafeBuffer scratch()
    {
        return new UnsafeBuffer(new byte[16 * 1024]);
    }

    public void close()
    {
        cncFile.close();
    }
}
