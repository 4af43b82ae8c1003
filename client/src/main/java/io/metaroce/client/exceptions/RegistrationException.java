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
package io.metaroce.client.exceptions;

import io.metaroce.codec.control.ControlErrorCode;

/**
 * The driver refused a command (adding or removing a publication, subscription or counter, closing, terminating):
 * carries the driver's typed error code and message.
 */
public final class RegistrationException extends MetaRoceException
{
    private static final long serialVersionUID = -2207240287000624357L;

    /**
     * Error code the driver answered with.
     */
    private final ControlErrorCode errorCode;

    /**
     * Correlation id of the refused command.
     */
    private final long correlationId;

    /**
     * Create an exception from a driver's ERROR event.
     *
     * @param correlationId of the refused command.
     * @param errorCode     the driver answered with.
     * @param message       the driver gave.
     */
    public RegistrationException(final long correlationId, final ControlErrorCode errorCode, final String message)
    {
        super(errorCode + ": " + message + " (correlationId=" + correlationId + ")");
        this.errorCode = errorCode;
        this.correlationId = correlationId;
    }

    /**
     * Error code the driver answered with.
     *
     * @return the code.
     */
    public ControlErrorCode errorCode()
    {
        return errorCode;
    }

    /**
     * Correlation id of the refused command.
     *
     * @return the correlation id.
     */
    public long correlationId()
    {
        return correlationId;
    }
}
