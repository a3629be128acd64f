// bullet-bench: steps a scene of boxes on a ground plane with Bullet 3.24
// (Debian's libbullet-dev) and reports the time of every step, for
// `netphys bench physics`, which drives it over stdin/stdout so that both
// engines run the very same scene in one run, interleaved block by block.
//
// Protocol (one command per line on stdin, answers on stdout):
//
//	world <bodies> <sleep 0|1>      then <bodies> lines:
//	box <hx> <hy> <hz> <mass> <px> <py> <pz> <qx> <qy> <qz> <qw>
//	run <k>      steps k times, answers k lines "<wall ns> <thread cpu ns>"
//	awake        answers "awake <n>": dynamic bodies not deactivated
//	quit
//
// Bullet's defaults are kept, as a user of the library would have them:
// btDbvtBroadphase, btSequentialImpulseConstraintSolver with 10
// iterations, one fixed 1/60 s step per stepSimulation, collision margin
// 0.04 m inside the box. Friction is sqrt(0.6) on every body, because
// Bullet multiplies the two friction coefficients of a pair where netphys
// takes their geometric mean: both give 0.6 between two boxes. Sleeping is
// Bullet's own (deactivation after 2 s below 0.8 m/s and 1 rad/s); with
// sleep 0 every body gets DISABLE_DEACTIVATION.
#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <memory>
#include <vector>

namespace {

long long nanos(clockid_t clock) {
	timespec ts;
	clock_gettime(clock, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct World {
	btDefaultCollisionConfiguration config;
	btCollisionDispatcher dispatcher{&config};
	btDbvtBroadphase broadphase;
	btSequentialImpulseConstraintSolver solver;
	btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
	btStaticPlaneShape ground{btVector3(0, 1, 0), 0};
	std::vector<std::unique_ptr<btBoxShape>> shapes;
	std::vector<std::unique_ptr<btDefaultMotionState>> motions;
	std::vector<std::unique_ptr<btRigidBody>> bodies;

	World() {
		world.setGravity(btVector3(0, btScalar(-9.81), 0));
		add(&ground, 0, btTransform::getIdentity(), true);
	}
	~World() {
		for (auto &b : bodies) world.removeRigidBody(b.get());
	}
	void add(btCollisionShape *shape, btScalar mass, const btTransform &xf, bool sleep) {
		btVector3 inertia(0, 0, 0);
		if (mass > 0) shape->calculateLocalInertia(mass, inertia);
		motions.emplace_back(new btDefaultMotionState(xf));
		btRigidBody::btRigidBodyConstructionInfo info(mass, motions.back().get(), shape, inertia);
		info.m_friction = btScalar(std::sqrt(0.6));
		info.m_restitution = 0;
		bodies.emplace_back(new btRigidBody(info));
		if (!sleep && mass > 0) bodies.back()->setActivationState(DISABLE_DEACTIVATION);
		world.addRigidBody(bodies.back().get());
	}
};

}  // namespace

int main() {
	std::unique_ptr<World> w;
	bool sleep = true;
	char cmd[32];
	while (std::scanf("%31s", cmd) == 1) {
		if (!std::strcmp(cmd, "world")) {
			int n = 0, s = 1;
			if (std::scanf("%d %d", &n, &s) != 2 || n < 0) return 2;
			sleep = s != 0;
			w.reset(new World());
			for (int i = 0; i < n; i++) {
				double h[3], m, p[3], q[4];
				if (std::scanf(" box %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &h[0], &h[1], &h[2], &m,
				               &p[0], &p[1], &p[2], &q[0], &q[1], &q[2], &q[3]) != 11)
					return 2;
				w->shapes.emplace_back(new btBoxShape(btVector3(h[0], h[1], h[2])));
				btTransform xf(btQuaternion(q[0], q[1], q[2], q[3]), btVector3(p[0], p[1], p[2]));
				w->add(w->shapes.back().get(), btScalar(m), xf, sleep);
			}
			std::printf("ok\n");
		} else if (!std::strcmp(cmd, "run")) {
			int k = 0;
			if (std::scanf("%d", &k) != 1 || !w) return 2;
			for (int i = 0; i < k; i++) {
				long long t0 = nanos(CLOCK_MONOTONIC), c0 = nanos(CLOCK_THREAD_CPUTIME_ID);
				w->world.stepSimulation(btScalar(1.0 / 60), 0);
				long long c1 = nanos(CLOCK_THREAD_CPUTIME_ID), t1 = nanos(CLOCK_MONOTONIC);
				std::printf("%lld %lld\n", t1 - t0, c1 - c0);
			}
		} else if (!std::strcmp(cmd, "awake")) {
			int n = 0;
			if (w)
				for (auto &b : w->bodies)
					if (b->getInvMass() > 0 && b->isActive()) n++;
			std::printf("awake %d\n", n);
		} else if (!std::strcmp(cmd, "quit")) {
			return 0;
		} else {
			return 2;
		}
		std::fflush(stdout);
	}
	return 0;
}
