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

import org.agrona.ErrorHandler;

/**
 * The driver's error handler with an embedding application's behind it ({@code MediaDriver.Context.errorHandler}):
 * the driver records and counts every error first, so tools see it whatever the application does, then hands it on.
 * An exception the application's handler throws is recorded the same way and never reaches a driver agent.
 */
final class ApplicationErrorHandler implements ErrorHandler
{
    private final ErrorHandler driverHandler;
    private final ErrorHandler applicationHandler;

    private ApplicationErrorHandler(final ErrorHandler driverHandler, final ErrorHandler applicationHandler)
    {
        this.driverHandler = driverHandler;
        this.applicationHandler = applicationHandler;
    }

    /**
     * The driver's handler, followed by the application's when there is one.
     *
     * @param driverHandler      records and counts.
     * @param applicationHandler the application's, or null.
     * @return the handler the driver's agents report to.
     */
    static ErrorHandler around(final ErrorHandler driverHandler, final ErrorHandler applicationHandler)
    {
        return null == applicationHandler ? driverHandler :
            new ApplicationErrorHandler(driverHandler, applicationHandler);
    }

    /**
     * {@inheritDoc}
     */
    public void onError(final Throwable throwable)
    {
        driverHandler.onError(throwable);
        try
        {
            applicationHandler.onError(throwable);
        }
        catch (final Throwable ex)
        {
            driverHandler.onError(ex);
        }
    }
}
