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

/**
 * The media driver did not heartbeat or answer within the driver timeout: it is dead or stalled. The client closes
 * itself; its publications and subscriptions are closed.
 */
public final class DriverTimeoutException extends MetaRoceException
{
    private static final long serialVersionUID = 2170546003046413624L;

    /**
     * Create an exception.
     *
     * @param message describing what was awaited.
     */
    public DriverTimeoutException(final String message)
    {
        super(message);
    }
}
