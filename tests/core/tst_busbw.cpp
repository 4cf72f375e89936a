// SPDX-License-Identifier: MIT
// Collective bandwidth (core/analysis/busbw.h): the type from real NCCL/RCCL kernel and
// collective names, nccl-tests' bus-bandwidth factors (doc/PERFORMANCE.md) for
// every type and group size, algbw/busbw, and the message size from the Kineto
// args; and the Chakra kind the exporter and the GUI share (export/chakracommkind.h).
#include "analysis/chakracommkind.h"
#include "analysis/busbw.h"

#include <QtTest>

#include <vector>

using namespace syncscope;

Q_DECLARE_METATYPE(syncscope::CollectiveType)

class TestBusBw : public QObject
{
    Q_OBJECT
private slots:
    void typeFromName_data();
    void typeFromName();
    void factors_data();
    void factors();
    void bandwidth();
    void messageBytes();
    void chakraKind_data();
    void chakraKind();
};

void TestBusBw::typeFromName_data()
{
    QTest::addColumn<QString>("name");
    QTest::addColumn<CollectiveType>("type");
    using T = CollectiveType;
    // Kernel names as NCCL < 2.19, NCCL >= 2.19 and RCCL write them, with parameter lists.
    QTest::newRow("old allreduce") << "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"
                                   << T::AllReduce;
    QTest::newRow("dev reduce-scatter") << "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
                                        << T::ReduceScatter;
    QTest::newRow("void dev allgather") << "void ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
                                        << T::AllGather;
    QTest::newRow("old sendrecv") << "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)"
                                  << T::SendRecv;
    QTest::newRow("dev sendrecv") << "ncclDevKernel_SendRecv(ncclDevComm*, unsigned long, ncclWork*)" << T::SendRecv;
    QTest::newRow("dev broadcast") << "ncclDevKernel_Broadcast_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
                                   << T::Broadcast;
    QTest::newRow("dev reduce") << "ncclDevKernel_Reduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
                                << T::Reduce;
    QTest::newRow("old reduce-scatter") << "ncclKernel_ReduceScatter_RING_LL_Sum_half" << T::ReduceScatter;
    QTest::newRow("old allgather") << "ncclKernel_AllGather_RING_LL_Sum_int8_t" << T::AllGather;
    QTest::newRow("rccl alltoall") << "ncclDevKernel_AllToAll_RING_SIMPLE" << T::AllToAll;
    // Collective names (Kineto "Collective name", ET ops, torch.distributed).
    QTest::newRow("allreduce") << "allreduce" << T::AllReduce;
    QTest::newRow("all_gather_into_tensor") << "all_gather_into_tensor" << T::AllGather;
    QTest::newRow("_reduce_scatter_base") << "_reduce_scatter_base" << T::ReduceScatter;
    QTest::newRow("nccl:all_to_all") << "nccl:all_to_all" << T::AllToAll;
    QTest::newRow("all_to_allv") << "all_to_allv" << T::AllToAll;
    QTest::newRow("send") << "send" << T::Send;
    QTest::newRow("recv") << "c10d::recv_" << T::Recv;
    QTest::newRow("gather") << "gather" << T::Gather;
    QTest::newRow("scatter") << "scatter" << T::Scatter;
    QTest::newRow("gemm") << "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n" << T::Unknown;
    QTest::newRow("empty") << "" << T::Unknown;
}

void TestBusBw::typeFromName()
{
    QFETCH(QString, name);
    QFETCH(CollectiveType, type);
    const std::string s = name.toStdString();
    QCOMPARE(int(collectiveTypeOf(s)), int(type));
}

void TestBusBw::factors_data()
{
    QTest::addColumn<CollectiveType>("type");
    QTest::addColumn<qint64>("n");
    QTest::addColumn<double>("factor");
    using T = CollectiveType;
    for (const qint64 n : {1, 2, 8}) {
        const double nn = double(n);
        const QByteArray s = QByteArray::number(n);
        QTest::newRow("all_reduce n=" + s) << T::AllReduce << n << 2 * (nn - 1) / nn;
        QTest::newRow("all_gather n=" + s) << T::AllGather << n << (nn - 1) / nn;
        QTest::newRow("reduce_scatter n=" + s) << T::ReduceScatter << n << (nn - 1) / nn;
        QTest::newRow("all_to_all n=" + s) << T::AllToAll << n << (nn - 1) / nn;
        QTest::newRow("broadcast n=" + s) << T::Broadcast << n << 1.0;
        QTest::newRow("reduce n=" + s) << T::Reduce << n << 1.0;
        QTest::newRow("send_recv n=" + s) << T::SendRecv << n << 1.0;
        QTest::newRow("send n=" + s) << T::Send << n << 1.0;
        QTest::newRow("recv n=" + s) << T::Recv << n << 1.0;
        QTest::newRow("unknown n=" + s) << T::Unknown << n << 0.0;
    }
    QTest::newRow("all_reduce n=0") << T::AllReduce << qint64(0) << 0.0;
}

void TestBusBw::factors()
{
    QFETCH(CollectiveType, type);
    QFETCH(qint64, n);
    QFETCH(double, factor);
    QCOMPARE(busBwFactor(type, n), factor);
}

void TestBusBw::bandwidth()
{
    // nccl-tests' own line: all_reduce_perf, 8 ranks, 1 GiB in 5,503.4 µs.
    const int64_t bytes = 1073741824;
    const double t = 5503.4e-6;
    QVERIFY(std::abs(algBwGBps(bytes, t) - 195.10) < 0.01);
    QVERIFY(std::abs(busBwGBps(CollectiveType::AllReduce, 8, bytes, t) - 195.10 * 1.75) < 0.02);
    QCOMPARE(busBwGBps(CollectiveType::SendRecv, 2, bytes, t), algBwGBps(bytes, t));
    QCOMPARE(busBwGBps(CollectiveType::AllGather, 1, bytes, t), 0.0); // one rank moves nothing
    QCOMPARE(algBwGBps(bytes, 0), 0.0);
    QCOMPARE(algBwGBps(bytes, -1), 0.0);
    QCOMPARE(algBwGBps(-1, t), 0.0);
    QCOMPARE(algBwGBps(1000000000, 1.0), 1.0); // GB/s are 1e9 bytes per second
}

void TestBusBw::messageBytes()
{
    using T = CollectiveType;
    QCOMPARE(torchDtypeBytes("Float"), int64_t(4));
    QCOMPARE(torchDtypeBytes("BFloat16"), int64_t(2));
    QCOMPARE(torchDtypeBytes("Float8_e4m3fn"), int64_t(1));
    QCOMPARE(torchDtypeBytes("Long"), int64_t(8));
    QCOMPARE(torchDtypeBytes("Quantum"), int64_t(0));
    // nccl-tests' S: all-gather the gathered output, reduce-scatter the input it splits.
    QCOMPARE(collectiveMessageBytes(T::AllReduce, 262144, 262144, "Float").value(), int64_t(1048576));
    QCOMPARE(collectiveMessageBytes(T::AllGather, 1024, 8192, "BFloat16").value(), int64_t(16384));
    QCOMPARE(collectiveMessageBytes(T::ReduceScatter, 8192, 1024, "BFloat16").value(), int64_t(16384));
    QCOMPARE(collectiveMessageBytes(T::Send, 10, 20, "Byte").value(), int64_t(10));
    QCOMPARE(collectiveMessageBytes(T::AllGather, 1024, -1, "Float").value(), int64_t(4096)); // only the input known
    QVERIFY(!collectiveMessageBytes(T::AllReduce, -1, -1, "Float"));
    QVERIFY(!collectiveMessageBytes(T::AllReduce, 10, 10, "Quantum"));
    QVERIFY(!collectiveMessageBytes(T::AllReduce, INT64_MAX / 2, 0, "Float")); // overflows
}

void TestBusBw::chakraKind_data()
{
    QTest::addColumn<QString>("kernel");
    QTest::addColumn<QStringList>("ancestors");
    QTest::addColumn<QString>("kind");
    QTest::newRow("old allreduce") << "ncclKernel_AllReduce_RING_LL_Sum_float" << QStringList{} << "ALL_REDUCE";
    QTest::newRow("dev reduce-scatter") << "ncclDevKernel_ReduceScatter_Sum_bf16_RING_LL" << QStringList{}
                                        << "REDUCE_SCATTER";
    QTest::newRow("dev allgather") << "ncclDevKernel_AllGather_RING_LL" << QStringList{} << "ALL_GATHER";
    QTest::newRow("dev broadcast") << "ncclDevKernel_Broadcast_RING_LL" << QStringList{} << "BROADCAST";
    QTest::newRow("dev reduce") << "ncclDevKernel_Reduce_Sum_f32_RING_LL" << QStringList{} << "REDUCE";
    // DLRM's sendrecv under nccl:all_to_all (the record_param_comms wrapper skipped).
    QTest::newRow("sendrecv under all_to_all")
        << "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"
        << QStringList{QStringLiteral("record_param_comms"), QStringLiteral("nccl:all_to_all")} << "ALL_TO_ALL";
    QTest::newRow("sendrecv under send") << "ncclDevKernel_SendRecv(ncclDevComm*)"
                                         << QStringList{QStringLiteral("nccl:send")} << "SEND";
    QTest::newRow("sendrecv under recv") << "ncclDevKernel_SendRecv(ncclDevComm*)"
                                         << QStringList{QStringLiteral("c10d::recv_")} << "RECV";
    QTest::newRow("sendrecv, no telling ancestor") << "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"
                                                   << QStringList{QStringLiteral("aten::foo")} << "ALL_TO_ALL";
    QTest::newRow("gemm") << "sm90_xmma_gemm" << QStringList{} << "";
    QTest::newRow("unknown nccl") << "ncclDevKernel_Generic" << QStringList{} << "";
}

void TestBusBw::chakraKind()
{
    QFETCH(QString, kernel);
    QFETCH(QStringList, ancestors);
    QFETCH(QString, kind);
    std::vector<std::string> names;
    for (const QString &a : ancestors)
        names.push_back(a.toStdString());
    const ChakraCommKind k = chakraKernelCommKind(kernel.toStdString(), [&](int depth) -> std::optional<std::string_view> {
        if (depth >= int(names.size()))
            return std::nullopt;
        return names[size_t(depth)];
    });
    QCOMPARE(QString::fromStdString(chakraCommKindName(k)), kind);
    QCOMPARE(k.unknownCollective, kernel == QLatin1String("ncclDevKernel_Generic"));
}

QTEST_GUILESS_MAIN(TestBusBw)
#include "tst_busbw.moc"
